package io.github.sparkkinesis

import java.util

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.KinesisClientFactory
import io.github.sparkkinesis.config.KinesisSourceConfig
import io.github.sparkkinesis.source.{KinesisRecordSchema, KinesisTable}
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * The entry point Spark finds for `format("kinesis")`. Parses and validates every option when the DataFrame
 * is created, so a bad option fails at `.load()`. Driver side; stateless.
 */
class KinesisSourceProvider extends TableProvider with DataSourceRegister {

  override def shortName(): String = "kinesis"

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = KinesisRecordSchema.schema

  override def getTable(
      schema: StructType,
      partitioning: Array[Transform],
      properties: util.Map[String, String]
  ): Table = {
    val config = KinesisSourceConfig(properties.asScala.toMap, () => KinesisClientFactory.defaultRegion())
    new KinesisTable(config)
  }
}
