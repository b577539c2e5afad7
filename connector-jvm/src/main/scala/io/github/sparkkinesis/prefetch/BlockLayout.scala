// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.ShardKey
import org.apache.spark.unsafe.Platform

/**
 * The layout of a prefetched block, in one place: what [[BlockLayout.write]] writes and [[BlockCursor]]
 * reads. A block is the rows of one shard's records, each already in the form Spark keeps a row in (an
 * `UnsafeRow` of the source's row schema, `KinesisRecordSchema`), so that a batch hands Spark a row
 * that points into the block: a record's bytes are copied once, from the SDK's answer into the block, and
 * never again on the way to a row. Spark stores the block's bytes as they are (`BlockManager.putBytes`),
 * spills them to disk and serves them to other executors without serializing them again.
 * {{{
 * block   := chunk+
 * chunk   := version:int32  chunkBytes:int32  record+       (chunkBytes counts the whole chunk, header too)
 * record  := rowBytes:int32  subSequenceNumber:int32  row   (-1: a whole Kinesis record, else its index in
 *                                                          its KPL aggregate)
 * row     := Spark's UnsafeRow of the six columns: a null bit set (8 bytes; only partitionKey's bit, bit 0,
 *            may be set: a record without a partition key, whose word is 0 and which has no bytes), six
 *            8-byte words (partitionKey, data, stream, shardId and sequenceNumber as offset << 32 | length,
 *            relative to the row's start; approximateArrivalTimestamp in microseconds), then the bytes of
 *            the five in that order, each padded with zeros to a multiple of 8
 * }}}
 * Numbers are in the machine's byte order, as UnsafeRow's are (Spark's executors share one). Every piece
 * is a multiple of 8 bytes, so each row starts 8-byte aligned in an array. A chunk holds whole records, at
 * least one and about [[BlockLayout.ChunkBytes]] at most (more for one larger record), so that Spark's
 * memory store places and spills a large block in pieces; the strings are UTF-8.
 */
private[sparkkinesis] object BlockLayout {

  /** The layout's version, first in every chunk; 1 and 2 were earlier layouts that Spark serialized. */
  val Version: Int = 3

  /** Chunks stay small enough for Spark's memory store to place and spill them one by one. */
  val ChunkBytes: Int = 4 * 1024 * 1024

  val ChunkHeaderBytes: Int = 8
  val RecordHeaderBytes: Int = 8

  /** The row's columns, in the order of `KinesisRecordSchema.schema`. */
  val PartitionKey = 0
  val Data = 1
  val Stream = 2
  val ShardId = 3
  val SequenceNumber = 4
  val ArrivalTimestamp = 5
  val Columns = 6

  /** The null bit set of six columns and their six words. */
  val RowFixedBytes: Int = 8 + 8 * Columns

  /** Where a column's word is, from the row's start. */
  def wordAt(column: Int): Int = 8 + 8 * column

  /** The rows of `records` of `shard`, as chunks; none for no records. */
  def write(shard: ShardKey, records: Seq[KinesisRecord]): Seq[Array[Byte]] = {
    val stream = shard.stream.getBytes(UTF_8)
    val shardId = shard.shardId.getBytes(UTF_8)
    val constantBytes = RowFixedBytes + padded(stream.length) + padded(shardId.length)
    val count = records.size
    // Each string's UTF-8 bytes, made once (the JDK copies an ASCII string's bytes at once), and once for a
    // run of records that share the string: a KPL aggregate's user records share its sequence number.
    val keys = new Utf8Run
    val sequenceNumbers = new Utf8Run
    val keyBytes = new Array[Array[Byte]](count)
    val sequenceNumberBytes = new Array[Array[Byte]](count)
    val rowBytes = new Array[Int](count)
    var i = 0
    records.foreach { r =>
      keyBytes(i) = keys.bytesOf(r.partitionKey)
      sequenceNumberBytes(i) = sequenceNumbers.bytesOf(r.sequenceNumber)
      rowBytes(i) = constantBytes + padded(lengthOf(keyBytes(i))) + padded(r.data.length) +
        padded(sequenceNumberBytes(i).length)
      i += 1
    }
    val chunks = ArrayBuffer.empty[Array[Byte]]
    val each = records.iterator
    i = 0
    while (i < count) {
      // A chunk takes records until it holds ChunkBytes or more: as many as fit, and at least one.
      var end = i
      var bytes = ChunkHeaderBytes.toLong
      while (end < count && bytes < ChunkBytes) {
        bytes += RecordHeaderBytes + rowBytes(end)
        end += 1
      }
      val chunk = new Array[Byte](Math.toIntExact(bytes))
      putInt(chunk, 0, Version)
      putInt(chunk, 4, chunk.length)
      var at = ChunkHeaderBytes
      while (i < end) {
        at = writeRecord(chunk, at, each.next(), rowBytes(i), keyBytes(i), sequenceNumberBytes(i), stream, shardId)
        i += 1
      }
      chunks += chunk
    }
    chunks.toVector
  }

  /** Writes one record at `at` of a fresh (zeroed) chunk, its row of `rowBytes`; returns where the next starts. */
  private def writeRecord(
      chunk: Array[Byte],
      at: Int,
      record: KinesisRecord,
      rowBytes: Int,
      key: Array[Byte],
      sequenceNumber: Array[Byte],
      stream: Array[Byte],
      shardId: Array[Byte]): Int = {
    putInt(chunk, at, rowBytes)
    putInt(chunk, at + 4, record.subSequenceNumber.fold(-1)(Math.toIntExact))
    val row = at + RecordHeaderBytes
    // Every column but partitionKey always has a value; a record without a key has its null bit set.
    var tail =
      if (key == null) {
        putLong(chunk, row, 1L << PartitionKey)
        RowFixedBytes
      } else putValue(chunk, row, PartitionKey, key, RowFixedBytes)
    tail = putValue(chunk, row, Data, record.data, tail)
    tail = putValue(chunk, row, Stream, stream, tail)
    tail = putValue(chunk, row, ShardId, shardId, tail)
    putValue(chunk, row, SequenceNumber, sequenceNumber, tail)
    putLong(chunk, row + wordAt(ArrivalTimestamp), record.approximateArrivalMillis * 1000L)
    row + rowBytes
  }

  /**
   * Writes a variable-length column's value at `tail` (from the row's start) and its word; returns where the
   * next value goes.
   */
  private def putValue(chunk: Array[Byte], row: Int, column: Int, value: Array[Byte], tail: Int): Int = {
    putLong(chunk, row + wordAt(column), (tail.toLong << 32) | value.length)
    System.arraycopy(value, 0, chunk, row + tail, value.length)
    tail + padded(value.length)
  }

  private def lengthOf(bytes: Array[Byte]): Int = if (bytes == null) 0 else bytes.length

  /** A length rounded up to a multiple of 8, as UnsafeRow pads its variable-length values. */
  def padded(length: Int): Int = (length + 7) & ~7

  def getInt(bytes: Array[Byte], at: Int): Int = Platform.getInt(bytes, Platform.BYTE_ARRAY_OFFSET + at.toLong)
  def getLong(bytes: Array[Byte], at: Int): Long = Platform.getLong(bytes, Platform.BYTE_ARRAY_OFFSET + at.toLong)
  private def putInt(bytes: Array[Byte], at: Int, value: Int): Unit =
    Platform.putInt(bytes, Platform.BYTE_ARRAY_OFFSET + at.toLong, value)
  private def putLong(bytes: Array[Byte], at: Int, value: Long): Unit =
    Platform.putLong(bytes, Platform.BYTE_ARRAY_OFFSET + at.toLong, value)

  /**
   * UTF-8 bytes of strings met in turn, made again only when the string is another object than the last;
   * null for null.
   */
  private final class Utf8Run {
    private var last: String = _
    private var lastBytes: Array[Byte] = _

    def bytesOf(s: String): Array[Byte] = {
      if (!(s eq last)) {
        last = s
        lastBytes = if (s == null) null else s.getBytes(UTF_8)
      }
      lastBytes
    }
  }
}
