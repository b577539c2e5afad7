// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.{IteratorStart, KinesisRecord}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * How far reading a shard from `from` has come: the last Kinesis record read whole, and so where the shard
 * is opened again when nothing is open (after that record, or at `from` while nothing was read). A `from`
 * inside an aggregate opens at its Kinesis record, whose user records up to `from` [[Deaggregation]] then
 * skips. Kept by [[ShardFetcher]]. Not thread-safe.
 */
private[reading] final class ReadProgress(key: ShardKey, from: ShardPosition) {
  private var last = from match {
    case ShardPosition.After(seq, None) => Some(seq)
    case _ => None
  }

  /** The sequence number of the last Kinesis record read whole, if any (or the one `from` is after). */
  def lastSequenceNumber: Option[String] = last

  /** The records of an answer were read whole. */
  def read(records: Seq[KinesisRecord]): Unit = records.lastOption.foreach(r => last = Some(r.sequenceNumber))

  /** Where the shard is opened when nothing is open. */
  def resumeAt: IteratorStart =
    last
      .map(IteratorStart.AfterSequenceNumber)
      .orElse(ReadProgress.startOf(from))
      .getOrElse(throw new IllegalStateException(s"$key has nothing to read after $from"))
}

private[reading] object ReadProgress {

  /** Where a shard read from `position` is opened, or None when nothing is left to read after it. */
  def startOf(position: ShardPosition): Option[IteratorStart] = position match {
    case ShardPosition.TrimHorizon => Some(IteratorStart.TrimHorizon)
    case ShardPosition.AtTimestamp(ms) => Some(IteratorStart.AtTimestamp(ms))
    case ShardPosition.At(seq) => Some(IteratorStart.AtSequenceNumber(seq))
    case ShardPosition.After(seq, None) => Some(IteratorStart.AfterSequenceNumber(seq))
    // Inside an aggregate: at its Kinesis record, whose user records up to the position are skipped.
    case ShardPosition.After(seq, Some(_)) => Some(IteratorStart.AtSequenceNumber(seq))
    case ShardPosition.ShardEnd => None
  }
}
