// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import io.github.sparkkinesis.util.SummedMetric
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}

/**
 * What the Spark UI shows for each write to Kinesis, summed over its tasks: rows written, the Kinesis
 * records they took (fewer with kplAggregation), bytes of data, records sent again after Kinesis turned
 * them down, PutRecords requests Kinesis throttled, and rows skipped for null data (nullData skip).
 */
private[sparkkinesis] object KinesisWriteMetrics {
  val Rows = "recordsWritten"
  val KinesisRecords = "kinesisRecordsWritten"
  val Bytes = "bytesWritten"
  val Retried = "recordsRetried"
  val Throttled = "throttledRequests"
  val Skipped = "nullDataRowsSkipped"

  def supported: Array[CustomMetric] =
    Array(
      new RecordsWritten,
      new KinesisRecordsWritten,
      new BytesWritten,
      new RecordsRetried,
      new ThrottledRequests,
      new NullDataRowsSkipped)

  def taskValues(counts: WriteCounts): Array[CustomTaskMetric] =
    counts.asMap.map { case (name, value) => TaskValue(name, value): CustomTaskMetric }.toArray

  private final case class TaskValue(name: String, value: Long) extends CustomTaskMetric
}

/** One task's counts, as it reports them when it commits. */
private[sparkkinesis] final case class WriteCounts(
    rows: Long,
    kinesisRecords: Long,
    bytes: Long,
    retried: Long,
    throttled: Long,
    skipped: Long) {
  import KinesisWriteMetrics._

  def asMap: Seq[(String, Long)] =
    Seq(
      Rows -> rows,
      KinesisRecords -> kinesisRecords,
      Bytes -> bytes,
      Retried -> retried,
      Throttled -> throttled,
      Skipped -> skipped)

  def toArray: Array[Long] = Array(rows, kinesisRecords, bytes, retried, throttled, skipped)
}

private[sparkkinesis] object WriteCounts {
  def fromArray(a: Array[Long]): Option[WriteCounts] = a match {
    case Array(rows, records, bytes, retried, throttled, skipped) =>
      Some(WriteCounts(rows, records, bytes, retried, throttled, skipped))
    case _ => None
  }

  def of(sent: SendCounters, skipped: Long): WriteCounts =
    WriteCounts(
      sent.rows.get,
      sent.records.get,
      sent.bytes.get,
      sent.retriedRecords.get,
      sent.throttledRequests.get,
      skipped)
}

private[sparkkinesis] final class RecordsWritten
    extends SummedMetric(KinesisWriteMetrics.Rows, "rows written to Kinesis")

private[sparkkinesis] final class KinesisRecordsWritten
    extends SummedMetric(
      KinesisWriteMetrics.KinesisRecords,
      "Kinesis records written (fewer than rows with kplAggregation)")

private[sparkkinesis] final class BytesWritten
    extends SummedMetric(KinesisWriteMetrics.Bytes, "bytes of data written to Kinesis")

private[sparkkinesis] final class RecordsRetried
    extends SummedMetric(KinesisWriteMetrics.Retried, "Kinesis records sent again after Kinesis turned them down")

private[sparkkinesis] final class ThrottledRequests
    extends SummedMetric(KinesisWriteMetrics.Throttled, "PutRecords requests Kinesis throttled")

private[sparkkinesis] final class NullDataRowsSkipped
    extends SummedMetric(KinesisWriteMetrics.Skipped, "rows skipped for null data (nullData skip)")
