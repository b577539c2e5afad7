// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.prefetch.BlockCursor
import io.github.sparkkinesis.reading.RecordCursor
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter
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
   * Where the record of `row`, a row of [[schema]], was read, as a phrase naming its stream, shard and
   * sequence number, if its data is `data` (for [[io.github.sparkkinesis.util.RecordOrigins]]).
   */
  def originOf(row: InternalRow, data: Array[Byte]): Option[String] =
    if (row == null || row.isNullAt(1) || !java.util.Arrays.equals(row.getBinary(1), data)) None
    else
      Some(s"stream ${row.getUTF8String(2)}, shard ${row.getUTF8String(3)}, sequence number ${row.getUTF8String(4)}")

  /**
   * The rows of one shard's records. A prefetched record's row is already in its block ([[BlockCursor.row]],
   * laid out by `prefetch.BlockLayout` to this schema) and is handed on as it is; a record as Kinesis
   * returned it is copied once into an `UnsafeRow` (the form Spark keeps rows in). The row returned is
   * reused by the next call, as Spark's own readers do: valid until the reader moves on.
   */
  final class RowWriter(key: ShardKey) {
    private val stream = UTF8String.fromString(key.stream)
    private val shardId = UTF8String.fromString(key.shardId)
    private val writer = new UnsafeRowWriter(schema.length, 256)

    def rowOf(cursor: RecordCursor): InternalRow = cursor match {
      case r: BlockCursor => r.row
      case r: RecordCursor.Records =>
        val record = r.current
        writer.reset()
        writer.zeroOutNullBytes()
        if (record.partitionKey == null) writer.setNullAt(0)
        else writer.write(0, UTF8String.fromString(record.partitionKey))
        writer.write(1, record.data)
        writer.write(2, stream)
        writer.write(3, shardId)
        writer.write(4, UTF8String.fromString(record.sequenceNumber))
        writer.write(5, record.approximateArrivalMillis * 1000L)
        writer.getRow
    }
  }
}
