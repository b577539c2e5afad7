// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.ByteBuffer

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardPosition}
import io.github.sparkkinesis.reading.RecordCursor

/**
 * The records of a block's encoded chunks ([[RecordBlockCodec]]), one at a time and in place: [[next]] reads a
 * record's lengths and numbers, and its partition key, data and sequence number stay where they are in
 * [[bytes]], to be copied once, into a row, or compared with a position, without a String or an Option
 * per record. The fields describe the current record until the next call. Optionally clipped to a range
 * of a shard ([[clip]]). Not thread-safe.
 */
private[sparkkinesis] final class BlockCursor(chunks: Iterator[Array[Byte]]) extends RecordCursor {
  private var chunk = Array.emptyByteArray
  private var in = ByteBuffer.wrap(chunk)
  private var at = 0

  private var _keyAt, _keyLength, _dataAt, _dataLength, _seqAt, _seqLength = 0
  private var _arrivalMillis, _subSequenceNumber = 0L

  private var after = Option.empty[ShardPosition.After]
  private var last = Option.empty[ShardPosition.After]
  private var reachedLast = false
  private var incomplete: () => Throwable = () => null
  private var done = false

  /** The bytes the current record's partition key, data and sequence number are in. */
  def bytes: Array[Byte] = chunk
  def keyAt: Int = _keyAt
  def keyLength: Int = _keyLength
  def dataAt: Int = _dataAt
  override def dataLength: Int = _dataLength
  def sequenceNumberAt: Int = _seqAt
  def sequenceNumberLength: Int = _seqLength
  override def arrivalMillis: Long = _arrivalMillis

  /** The user record's index in its KPL aggregate, or -1 for a whole Kinesis record. */
  def subSequenceNumber: Long = _subSequenceNumber

  /**
   * Keeps only the records after `from` up to and including `until` (with None, to the end); the records
   * must reach `until`, or the first call to [[next]] past the end throws `missing`. Before the first
   * [[next]].
   */
  def clip(from: ShardPosition, until: Option[ShardPosition.After])(missing: => Throwable): BlockCursor = {
    after = from match {
      case p: ShardPosition.After => Some(p)
      case _ => None
    }
    last = until
    incomplete = () => missing
    this
  }

  /** Moves to the next record; false when there is none (within the clip). */
  override def next(): Boolean = {
    var found = false
    while (!done && !found) {
      if (!advance()) {
        done = true
        if (last.isDefined && !reachedLast) throw incomplete()
      } else if (after.exists(compareTo(_) <= 0)) {
        // Before the range: read by an earlier batch.
      } else {
        after = None
        last match {
          case Some(end) if compareTo(end) > 0 =>
            done = true
            if (!reachedLast) throw incomplete()
          case Some(end) =>
            reachedLast ||= sameRecordAs(end)
            found = true
          case None => found = true
        }
      }
    }
    found
  }

  private def advance(): Boolean = {
    while (at >= chunk.length && chunks.hasNext) open(chunks.next())
    at < chunk.length && {
      _keyLength = in.getInt(at)
      _keyAt = at + 4
      _dataLength = in.getInt(_keyAt + _keyLength)
      _dataAt = _keyAt + _keyLength + 4
      _seqLength = in.getInt(_dataAt + _dataLength)
      _seqAt = _dataAt + _dataLength + 4
      _arrivalMillis = in.getLong(_seqAt + _seqLength)
      _subSequenceNumber = in.getLong(_seqAt + _seqLength + 8)
      at = _seqAt + _seqLength + 16
      true
    }
  }

  private def open(next: Array[Byte]): Unit = {
    if (next.nonEmpty && next(0) != RecordBlockCodec.Version)
      throw new IllegalStateException(s"Prefetched block chunk has unknown version ${next(0)}")
    chunk = next
    in = ByteBuffer.wrap(next)
    at = 1
  }

  /** How the current record orders against a position: negative when it is before, 0 when it is the one. */
  def compareTo(position: ShardPosition.After): Int =
    SequenceNumbers.compare(
      chunk,
      _seqAt,
      _seqLength,
      _subSequenceNumber,
      position.sequenceNumber,
      position.subSequenceNumber)

  /** Whether the current record is the one `end` names (any user record of it, if `end` is a whole record). */
  private def sameRecordAs(end: ShardPosition.After): Boolean =
    SequenceNumbers.compare(chunk, _seqAt, _seqLength, -1L, end.sequenceNumber, None) == 0 &&
      end.subSequenceNumber.forall(_ == _subSequenceNumber)

  /** The position just after the current record. */
  override def position: ShardPosition.After =
    ShardPosition.After(sequenceNumber, if (_subSequenceNumber >= 0) Some(_subSequenceNumber) else None)

  def sequenceNumber: String = new String(chunk, _seqAt, _seqLength, UTF_8)

  /** The current record, copied out. */
  override def record: KinesisRecord =
    KinesisRecord(
      new String(chunk, _keyAt, _keyLength, UTF_8),
      java.util.Arrays.copyOfRange(chunk, _dataAt, _dataAt + _dataLength),
      sequenceNumber,
      _arrivalMillis,
      if (_subSequenceNumber >= 0) Some(_subSequenceNumber) else None
    )
}
