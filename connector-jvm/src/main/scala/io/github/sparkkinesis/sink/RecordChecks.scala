// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import io.github.sparkkinesis.client.{PutRecord, ShardInfo, StreamSummary}
import io.github.sparkkinesis.config.{KinesisNames, NullDataPolicy}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.SequenceNumbers

/**
 * The checks a record passes before anything of it is sent, each failing with what is wrong and with which
 * column, so that a bad row never leaves a request half written. Kinesis' limits: a partition key of 1 to
 * 256 UTF-16 code units, data and partition key together at most the stream's maximum record size (1 MiB
 * unless raised, up to 10 MiB: see [[StreamRecordLimits]]), and an explicit hash key that is a decimal number
 * in [0, 2^128). Stateless.
 */
private[sparkkinesis] object RecordChecks {

  val MaxPartitionKeyChars = 256

  /**
   * A record to send, or None for a row skipped because its data is null and the sink skips those.
   *
   * @param recordLimit for a stream and a record of the given size, the largest record the stream takes, and
   *                    whether Kinesis said so (else it is the most Kinesis allows any stream); asked only of
   *                    a record larger than 1 MiB
   */
  def check(
      stream: String,
      partitionKey: String,
      data: Array[Byte],
      explicitHashKey: Option[String],
      nullData: NullDataPolicy,
      row: => String,
      recordLimit: (String, Long) => (Long, Boolean)): Option[PutRecord] = {
    if (partitionKey == null || partitionKey.isEmpty)
      throw badRecord(s"its partitionKey is ${if (partitionKey == null) "null" else "empty"}", row)
    if (partitionKey.length > MaxPartitionKeyChars)
      throw badRecord(
        s"its partitionKey has ${partitionKey.length} characters as Kinesis counts them (UTF-16 code units: a " +
          s"character outside the Basic Multilingual Plane, such as an emoji, counts twice); Kinesis allows at most " +
          MaxPartitionKeyChars,
        row
      )
    explicitHashKey.foreach { key =>
      val valid = SequenceNumbers.isDecimal(key) && BigInt(key) <= ShardInfo.MaxHashKey
      if (!valid) throw badRecord(s"its explicitHashKey '$key' is not a decimal number from 0 to 2^128 - 1", row)
    }
    if (data == null) nullData match {
      case NullDataPolicy.Fail =>
        throw badRecord(
          "its data is null; filter such rows out, or set .option(\"nullData\", \"skip\") to skip and count them",
          row)
      case NullDataPolicy.Skip => None
    }
    else {
      val record = PutRecord(partitionKey, data, explicitHashKey)
      val size = RecordSender.sizeOf(record)
      if (size > StreamSummary.DefaultMaxRecordBytes) {
        val (limit, described) = recordLimit(stream, size)
        if (size > limit) {
          val whose =
            if (!described) s"Kinesis takes at most $limit bytes (10 MiB) per record"
            else if (limit < StreamSummary.LargestMaxRecordBytes)
              s"stream '$stream' takes at most $limit bytes per record (its MaxRecordSizeInKiB is ${limit / 1024}); " +
                "raise it (UpdateMaxRecordSize, up to 10240), or write smaller records"
            else s"stream '$stream' takes at most $limit bytes (10 MiB) per record, the most Kinesis allows"
          throw badRecord(s"its data and partitionKey take $size bytes; $whose", row)
        }
      }
      Some(record)
    }
  }

  /** A row as errors name it: "row 7 of partition 3 of epoch 2, partitionKey 'k'". */
  def describe(row: Long, task: String, partitionKey: String): String = {
    val key = Option(partitionKey).map(k => if (k.length > 40) s"'${k.take(40)}...'" else s"'$k'").getOrElse("null")
    s"row $row of $task, partitionKey $key"
  }

  /** The stream a row goes to: its `stream` column, else the option `streamName`. */
  def stream(column: Option[String], option: Option[String], row: => String): String =
    column.orElse(option) match {
      case Some(name) if KinesisNames.isStream(name) => name
      case Some(name) =>
        throw badRecord(s"its stream '$name' is not a stream name (${KinesisNames.StreamAccepted})", row)
      case None => throw badRecord("its stream is null and the option streamName is not set", row)
    }

  private def badRecord(problem: String, row: String) = KinesisErrors.badRecord(problem, row)
}
