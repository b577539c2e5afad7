// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.ShardKey
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** The rows the source produces: one per Kinesis record, with the columns of the Databricks source. */
private[sparkkinesis] object KinesisRecordSchema {

  val schema: StructType = StructType(
    Seq(
      StructField("partitionKey", StringType),
      StructField("data", BinaryType),
      StructField("stream", StringType),
      StructField("shardId", StringType),
      StructField("sequenceNumber", StringType),
      StructField("approximateArrivalTimestamp", TimestampType)
    )
  )

  /**
   * A converter for the records of one shard; reuses the stream and shard strings across rows, and builds
   * each row on its array of values (`InternalRow(...)` copies its arguments into one first).
   */
  def rowsOf(key: ShardKey): KinesisRecord => InternalRow = {
    val stream = UTF8String.fromString(key.stream)
    val shardId = UTF8String.fromString(key.shardId)
    record =>
      new GenericInternalRow(
        Array[Any](
          UTF8String.fromString(record.partitionKey),
          record.data,
          stream,
          shardId,
          UTF8String.fromString(record.sequenceNumber),
          record.approximateArrivalMillis * 1000L
        ))
  }
}
