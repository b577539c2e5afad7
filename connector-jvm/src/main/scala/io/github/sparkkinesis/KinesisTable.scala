// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.{util => ju}

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.batch.KinesisRelation
import io.github.sparkkinesis.client.KinesisClientFactory
import io.github.sparkkinesis.config.{
  AwsOptions,
  KinesisOptions,
  KinesisSinkConfig,
  KinesisSourceConfig,
  ParsedOptions,
  StreamArn
}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.sink.{KinesisWriteBuilder, SinkTotals}
import io.github.sparkkinesis.source.KinesisRecordSchema
import org.apache.spark.sql.connector.catalog.{SupportsRead, SupportsWrite, TableCapability}
import org.apache.spark.sql.connector.read.streaming.ReportsSinkMetrics
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.sources.BaseRelation
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.sql.SQLContext

/**
 * Kinesis streams as one `format("kinesis")` names them: read as a micro-batch stream, written by batch
 * and streaming queries. Batch reads are a DataSource V1 relation of the provider's ([[batchRelation]]):
 * this table declares none, so Spark asks the provider for one. The options are those of the `.load()`, `.save()` or `.start()`: each value given
 * is checked when the table is created, the source's or the sink's whole configuration when a read or a
 * write is planned. A write takes any DataFrame; its columns are checked against the sink's when it is
 * planned. As a streaming query's sink it reports what was written (see [[SinkTotals]]).
 *
 * Only the table of [[KinesisBatchWrites]] takes batch writes: the table `format("kinesis")` gives
 * Spark does not declare them, so that Spark hands a batch write in any save mode to the provider's
 * DataSource V1 `createRelation`, which decides on the mode. Driver side.
 */
private[sparkkinesis] final class KinesisTable private (
    options: Map[String, String],
    defaultRegion: () => Option[String],
    batchWrites: Boolean)
    extends SupportsRead
    with SupportsWrite
    with ReportsSinkMetrics {

  private val totals = new SinkTotals

  override def name(): String = s"KinesisV2[${options.collectFirst(streamName).getOrElse("")}]"

  override def schema(): StructType = KinesisRecordSchema.schema

  override def capabilities(): ju.Set[TableCapability] = {
    val capabilities =
      ju.EnumSet.of(
        TableCapability.MICRO_BATCH_READ,
        TableCapability.STREAMING_WRITE,
        TableCapability.ACCEPT_ANY_SCHEMA)
    if (batchWrites) capabilities.add(TableCapability.BATCH_WRITE)
    capabilities
  }

  override def newScanBuilder(ignored: CaseInsensitiveStringMap): ScanBuilder = {
    val config = KinesisSourceConfig(options, defaultRegion)
    () => new KinesisScan(config)
  }

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder =
    new KinesisWriteBuilder(KinesisSinkConfig(options, defaultRegion), info.schema(), totals)

  override def metrics(): ju.Map[String, String] = totals.asProgressMetrics

  /** The streams as the options name them, before they are checked: by name, or by the names in ARNs. */
  private def streamName: PartialFunction[(String, String), String] = {
    case (k, v) if k.equalsIgnoreCase(KinesisOptions.StreamName.key) => v
    case (k, v) if k.equalsIgnoreCase(KinesisOptions.StreamArnOption.key) =>
      v.split(",").map(arn => StreamArn.parse(arn).fold(arn.trim)(_.name)).mkString(",")
  }
}

private[sparkkinesis] object KinesisTable {

  /** The table for a `format("kinesis")`'s options, for [[KinesisTableProvider]]. */
  def fromProperties(properties: ju.Map[String, String]): KinesisTable =
    KinesisTable(properties.asScala.toMap, () => KinesisClientFactory.defaultRegion())

  /** The table [[KinesisBatchWrites]] writes batches to. */
  def forBatchWrites(properties: ju.Map[String, String]): KinesisTable =
    KinesisTable(properties.asScala.toMap, () => KinesisClientFactory.defaultRegion(), batchWrites = true)

  /**
   * A batch read (`spark.read`), for the provider's DataSource V1 `createRelation`: its options are checked
   * at once, as `.load()` creates it.
   */
  def batchRelation(sqlContext: SQLContext, parameters: Map[String, String]): BaseRelation =
    KinesisRelation(sqlContext, parameters)

  /** The rows the source produces, for [[KinesisTableProvider]]. */
  def recordSchema(): StructType = KinesisRecordSchema.schema

  /**
   * For `readStream...load()` alone (the DataSource V1 `sourceSchema`): checks the source's whole
   * configuration, so that a read without `streamName` fails there rather than when the query starts, and
   * refuses a schema given with `.schema(...)`.
   */
  def sourceSchema(userSchema: Option[StructType], parameters: Map[String, String]): (String, StructType) = {
    userSchema.filter(_ != KinesisRecordSchema.schema).foreach { _ =>
      throw KinesisErrors.schemaFixed(KinesisRecordSchema.schema.fields.map(_.name).mkString(", "))
    }
    val config = KinesisSourceConfig(parameters, () => KinesisClientFactory.defaultRegion())
    (s"KinesisV2[${config.streams.mkString(",")}]", KinesisRecordSchema.schema)
  }

  /** Checks every option value given (and that a region is known) before the table exists. */
  def apply(
      options: Map[String, String],
      defaultRegion: () => Option[String],
      batchWrites: Boolean = false): KinesisTable = {
    val parsed = new ParsedOptions(options)
    parsed.checkGiven()
    AwsOptions.parse(parsed, defaultRegion)
    new KinesisTable(options, defaultRegion, batchWrites)
  }
}
