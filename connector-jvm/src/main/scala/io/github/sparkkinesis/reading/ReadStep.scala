// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.{KinesisApiException, KinesisRecord}

/** What one step of a shard's [[ShardReads]] came to. */
private[reading] sealed trait ReadStep

private[reading] object ReadStep {

  /**
   * Records, in order.
   *
   * @param atTip      nothing newer is in the shard as far as this answer can tell
   * @param shardEnded the shard is closed and these are its last records
   * @param asOf       the answer shows the shard as it was at this instant or later (for Trigger.AvailableNow)
   * @param wholeUpTo  the answer holds every record from where it was asked up to the shard's tip as it was
   *                   then, so that any record that arrived before `asOf` is in it or was read before,
   *                   provided no record of the shard is larger than this many bytes (data and partition
   *                   key): at its tip, not full for the count asked, and with room left for such a record
   *                   below the most an answer carries. -1 when nothing is certain, Long.MaxValue when
   *                   whatever the records' size (see [[whole]])
   */
  final case class Read(
      records: Seq[KinesisRecord],
      millisBehindLatest: Long,
      atTip: Boolean,
      shardEnded: Boolean,
      asOf: Long,
      wholeUpTo: Long)
      extends ReadStep {

    /** Whether the answer holds everything up to the tip, in a shard whose records are at most `largestRecord`. */
    def whole(largestRecord: Long): Boolean = largestRecord <= wholeUpTo
  }

  /** What [[Read.wholeUpTo]] is when nothing is certain. */
  val NotWhole: Long = -1L

  /** Kinesis throttled the call (`cause`); the reads wait before the next. */
  final case class Throttled(cause: KinesisApiException) extends ReadStep

  /** Nothing this step: an iterator or a subscription was opened or renewed, or no event came yet. */
  case object Nothing extends ReadStep
}
