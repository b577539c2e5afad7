// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.client.{IteratorStart, KinesisRecord}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * How far reading a shard from `from` has come: the last Kinesis record read whole, and so where the shard
 * is opened again when nothing is open (after that record, or at `from` while nothing was read). A `from`
 * inside an aggregate opens at its Kinesis record, whose user records up to `from` [[Deaggregation]] then
 * skips. Kept alike by the prefetch tasks and the batches that read a range again. Not thread-safe.
 */
private[prefetch] final class ReadProgress(key: ShardKey, from: ShardPosition) {
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
      .orElse(from.resumeAt)
      .getOrElse(throw new IllegalStateException(s"$key has nothing to read after $from"))
}
