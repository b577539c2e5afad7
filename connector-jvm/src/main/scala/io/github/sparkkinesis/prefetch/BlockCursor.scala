// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.ByteBuffer

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardPosition}
import io.github.sparkkinesis.prefetch.BlockCursor._
import io.github.sparkkinesis.prefetch.BlockLayout._
import io.github.sparkkinesis.reading.RecordCursor
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * The records of a prefetched block ([[BlockLayout]]), one at a time and in place: [[row]] is the current
 * record's row, pointing into the block's bytes, which the partition reader hands Spark as it is; the
 * sequence number is compared with a position where it lies, without a String or an Option per record.
 * The fields describe the current record until the next call. Optionally clipped to a range of a shard
 * ([[clip]]).
 *
 * The block comes as the buffers Spark holds it in: in memory, the very arrays the prefetch task wrote;
 * read from disk or another executor, buffers whose boundaries need not be the chunks'. A chunk that lies
 * in one array-backed buffer is read where it is; one split across buffers (or off the heap) is first copied
 * into an array of its own. Not thread-safe.
 *
 * @param name the block's name, for errors
 */
private[sparkkinesis] final class BlockCursor(name: String, buffers: Iterator[ByteBuffer]) extends RecordCursor {
  private var buffer = ByteBuffer.allocate(0)
  private var chunk = Array.emptyByteArray
  private var at = 0
  private var end = 0

  private var rowAt = 0
  private var _subSequenceNumber = -1L
  private val current = new UnsafeRow(Columns)

  private var after = Option.empty[ShardPosition.After]
  private var last = Option.empty[ShardPosition.After]
  private var reachedLast = false
  private var expected = -1L
  private var taken = 0L
  private var incomplete: () => Throwable = () => null
  private var done = false

  /** The current record's row, in the block's bytes: valid until the next call to [[next]]. */
  def row: UnsafeRow = current

  override def dataLength: Int = word(Data).toInt

  override def arrivalMillis: Long = getLong(chunk, rowAt + wordAt(ArrivalTimestamp)) / 1000L

  /** The user record's index in its KPL aggregate, or -1 for a whole Kinesis record. */
  def subSequenceNumber: Long = _subSequenceNumber

  /**
   * Keeps only the records after `from` up to and including `until` (with None, to the end); the records
   * must reach `until`, or the first call to [[next]] past the end throws `missing`. With `records`, the
   * number of records the clip holds (a stretch of the catalog knows it), the records after the start are
   * counted rather than each compared with `until`, and the last of them must be the one `until` names, or
   * [[next]] throws `missing` then. Before the first [[next]].
   */
  def clip(from: ShardPosition, until: Option[ShardPosition.After], records: Option[Long] = None)(
      missing: => Throwable): BlockCursor = {
    after = from match {
      case p: ShardPosition.After => Some(p)
      case _ => None
    }
    last = until
    expected = records.filter(n => n > 0 && until.isDefined).getOrElse(-1L)
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
          case Some(end) if expected >= 0 => found = counted(end)
          case Some(end) =>
            againstEnd(end) match {
              case Inside => found = true
              case TheLast =>
                reachedLast = true
                found = true
              case _ =>
                done = true
                if (!reachedLast) throw incomplete()
            }
          case None => found = true
        }
      }
    }
    found
  }

  /**
   * Whether the current record is within a clip of `expected` records: one of the first `expected` after
   * the start, the last of which must be the one `end` names, and the record after which must lie past
   * `end` (a whole record as `end` names all of its user records).
   */
  private def counted(end: ShardPosition.After): Boolean = {
    taken += 1
    if (taken == expected) {
      if (againstEnd(end) != TheLast) throw incomplete()
      reachedLast = true
    } else if (taken > expected) {
      if (againstEnd(end) != Past) throw incomplete()
      done = true
    }
    taken <= expected
  }

  /**
   * Where the current record lies against the clip's `end`: before it ([[Inside]]), the record `end` names
   * ([[TheLast]]: any user record of it, if `end` is a whole record), or after it ([[Past]]). One comparison
   * of the sequence numbers, without an object.
   */
  private def againstEnd(end: ShardPosition.After): Int = {
    val bySequence = SequenceNumbers.compare(chunk, sequenceNumberAt, sequenceNumberLength, end.sequenceNumber)
    if (bySequence < 0) Inside
    else if (bySequence > 0) Past
    else
      end.subSequenceNumber match {
        case None => TheLast
        // A user record of the aggregate `end` is inside; a whole record (-1) comes after all of them.
        case Some(sub) =>
          if (_subSequenceNumber == sub) TheLast
          else if (_subSequenceNumber >= 0 && _subSequenceNumber < sub) Inside
          else Past
      }
  }

  private def advance(): Boolean = {
    while (at >= end && openChunk()) {}
    at < end && {
      val rowBytes = getInt(chunk, at)
      _subSequenceNumber = getInt(chunk, at + 4).toLong
      rowAt = at + RecordHeaderBytes
      current.pointTo(chunk, Platform.BYTE_ARRAY_OFFSET + rowAt, rowBytes)
      at = rowAt + rowBytes
      true
    }
  }

  /** Moves to the block's next chunk; false at the block's end. */
  private def openChunk(): Boolean = {
    val header = take(ChunkHeaderBytes)
    header.nonEmpty && {
      val (bytes, headerAt) = header.get
      val version = getInt(bytes, headerAt)
      if (version != Version) {
        throw new IllegalStateException(
          s"Prefetched block $name has layout version $version, which this connector does not read (it reads " +
            s"version $Version): do all executors run the same connector jar?")
      }
      val chunkBytes = getInt(bytes, headerAt + 4)
      val (records, recordsAt) = take(chunkBytes - ChunkHeaderBytes).getOrElse {
        throw new IllegalStateException(s"Prefetched block $name ends inside a chunk of $chunkBytes bytes")
      }
      chunk = records
      at = recordsAt
      end = recordsAt + chunkBytes - ChunkHeaderBytes
      true
    }
  }

  /**
   * The block's next `n` bytes as an array and where they start in it: in place when the current buffer
   * holds them on the heap, else copied out; None at the block's end.
   */
  private def take(n: Int): Option[(Array[Byte], Int)] = {
    while (!buffer.hasRemaining && buffers.hasNext) buffer = buffers.next().duplicate()
    if (!buffer.hasRemaining) None
    else if (buffer.hasArray && buffer.remaining >= n) {
      val start = buffer.arrayOffset + buffer.position()
      buffer.position(buffer.position() + n)
      Some((buffer.array, start))
    } else {
      val copy = new Array[Byte](n)
      var copied = 0
      while (copied < n) {
        while (!buffer.hasRemaining && buffers.hasNext) buffer = buffers.next().duplicate()
        if (!buffer.hasRemaining) throw new IllegalStateException(s"Prefetched block $name ends inside a chunk")
        val part = math.min(n - copied, buffer.remaining)
        buffer.get(copy, copied, part)
        copied += part
      }
      Some((copy, 0))
    }
  }

  /** A column's word: offset << 32 | length for a variable-length one. */
  private def word(column: Int): Long = getLong(chunk, rowAt + wordAt(column))

  private def sequenceNumberAt: Int = rowAt + (word(SequenceNumber) >>> 32).toInt
  private def sequenceNumberLength: Int = word(SequenceNumber).toInt

  /** How the current record orders against a position: negative when it is before, 0 when it is the one. */
  def compareTo(position: ShardPosition.After): Int =
    SequenceNumbers.compare(
      chunk,
      sequenceNumberAt,
      sequenceNumberLength,
      _subSequenceNumber,
      position.sequenceNumber,
      position.subSequenceNumber)

  /** The position just after the current record. */
  override def position: ShardPosition.After =
    ShardPosition.After(
      current.getUTF8String(SequenceNumber).toString,
      if (_subSequenceNumber >= 0) Some(_subSequenceNumber) else None)

  /** The current record, copied out. */
  override def record: KinesisRecord =
    KinesisRecord(
      if (current.isNullAt(PartitionKey)) null else current.getUTF8String(PartitionKey).toString,
      current.getBinary(Data),
      current.getUTF8String(SequenceNumber).toString,
      arrivalMillis,
      if (_subSequenceNumber >= 0) Some(_subSequenceNumber) else None
    )
}

private[sparkkinesis] object BlockCursor {

  /** Where a record lies against a clip's end (`againstEnd`), as numbers: no object per record. */
  private val Inside = 0
  private val TheLast = 1
  private val Past = 2
}
