// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.ShardPosition

/**
 * Records of one shard, one at a time, in the form they come in: from a prefetched block, read in place in
 * its bytes (`prefetch.BlockCursor`), or as Kinesis returned them ([[RecordCursor.Records]]), so that
 * records read straight from Kinesis reach a row without being encoded and decoded on the way. The current
 * record's fields stay valid until the next call to [[next]]. Not thread-safe.
 */
private[sparkkinesis] trait RecordCursor {

  /** Moves to the next record; false when there is none. */
  def next(): Boolean

  /** The current record's data length in bytes. */
  def dataLength: Int

  /** When the current record arrived in Kinesis (epoch ms). */
  def arrivalMillis: Long

  /** The position just after the current record. */
  def position: ShardPosition.After

  /** The current record, copied out. */
  def record: KinesisRecord

  /** The remaining records, copied out (for tests and small reads). */
  final def records: Iterator[KinesisRecord] = Iterator.continually(next()).takeWhile(identity).map(_ => record)
}

private[sparkkinesis] object RecordCursor {

  /** A cursor over records as Kinesis returned them (user records of KPL aggregates already). */
  def of(records: Iterator[KinesisRecord]): Records = new Records(records)

  /** Records as Kinesis returned them: [[current]] is the record itself. */
  final class Records(source: Iterator[KinesisRecord]) extends RecordCursor {
    private var at: KinesisRecord = _

    /** The current record. */
    def current: KinesisRecord = at

    override def next(): Boolean = source.hasNext && { at = source.next(); true }
    override def dataLength: Int = at.data.length
    override def arrivalMillis: Long = at.approximateArrivalMillis
    override def position: ShardPosition.After = ShardPosition.After(at.sequenceNumber, at.subSequenceNumber)
    override def record: KinesisRecord = at
  }
}
