package io.github.sparkkinesis.source

import java.util

import io.github.sparkkinesis.config.KinesisSourceConfig
import org.apache.spark.sql.connector.catalog.{SupportsRead, TableCapability}
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder}
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/** The Kinesis streams of one `.load()`, readable as a micro-batch stream. Driver side; immutable. */
final class KinesisTable(config: KinesisSourceConfig) extends SupportsRead {

  override def name(): String = config.description

  override def schema(): StructType = KinesisRecordSchema.schema

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.MICRO_BATCH_READ)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = () => new KinesisScan(config)
}

/** The scan Spark plans with; describes itself without options, so no secret reaches a plan string. */
final class KinesisScan(config: KinesisSourceConfig) extends Scan {

  override def readSchema(): StructType = KinesisRecordSchema.schema

  override def description(): String = config.description

  override def supportedCustomMetrics(): Array[CustomMetric] = KinesisReadMetrics.supported

  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream =
    new KinesisMicroBatchStream(config, checkpointLocation)
}
