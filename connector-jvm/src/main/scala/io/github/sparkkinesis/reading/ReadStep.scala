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
   * @param whole      the answer holds every record from where it was asked up to the shard's tip as it was
   *                   then: at its tip, and nothing left out for the count asked or the answer's size, so
   *                   that any record that arrived before `asOf` is in it or was read before
   */
  final case class Read(
      records: Seq[KinesisRecord],
      millisBehindLatest: Long,
      atTip: Boolean,
      shardEnded: Boolean,
      asOf: Long,
      whole: Boolean)
      extends ReadStep

  /** Kinesis throttled the call (`cause`); the reads wait before the next. */
  final case class Throttled(cause: KinesisApiException) extends ReadStep

  /** Nothing this step: an iterator or a subscription was opened or renewed, or no event came yet. */
  case object Nothing extends ReadStep
}
