package io.github.sparkkinesis

import java.util

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.KinesisClientFactory
import io.github.sparkkinesis.source.KinesisRecordSchema
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * The entry point Spark finds for `format("kinesis")`, reading and writing. Spark asks it for the table the
 * same way for `.load()` and for `.save()`/`.start()`, so every option value given is checked here and
 * fails at once; what only a read needs (streamName) or only a write (its columns) is checked when the
 * read or write is planned. Driver side; stateless.
 */
class KinesisTableProvider extends TableProvider with DataSourceRegister {

  override def shortName(): String = "kinesis"

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = KinesisRecordSchema.schema

  override def getTable(
      schema: StructType,
      partitioning: Array[Transform],
      properties: util.Map[String, String]
  ): Table = KinesisTable(properties.asScala.toMap, () => KinesisClientFactory.defaultRegion())
}
