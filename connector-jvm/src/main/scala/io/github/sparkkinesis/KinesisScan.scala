// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import io.github.sparkkinesis.config.KinesisSourceConfig
import io.github.sparkkinesis.source.{CheckpointFiles, KinesisReadMetrics, KinesisRecordSchema}
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.SparkSession

/** The scan Spark plans with; describes itself without options, so no secret reaches a plan string. */
private[sparkkinesis] final class KinesisScan(config: KinesisSourceConfig) extends Scan {

  override def readSchema(): StructType = KinesisRecordSchema.schema

  override def description(): String = config.description

  override def supportedCustomMetrics(): Array[CustomMetric] = KinesisReadMetrics.supported

  /**
   * Spark asks for the stream when the query starts, before it reads its logs in the checkpoint. From
   * Spark 4.1 on, the stream can also run in real-time mode ([[StreamShims]]).
   */
  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream = {
    CheckpointFiles.checkReadable(checkpointLocation, SparkSession.active.sparkContext.hadoopConfiguration)
    StreamShims.stream(config, checkpointLocation)
  }
}
