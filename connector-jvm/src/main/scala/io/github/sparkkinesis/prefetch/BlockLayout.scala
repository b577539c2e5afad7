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
 * row     := Spark's UnsafeRow of the six columns: a null bit set (8 bytes, all clear), six 8-byte words
 *            (partitionKey, data, stream, shardId and sequenceNumber as offset << 32 | length, relative to
 *            the row's start; approximateArrivalTimestamp in microseconds), then the bytes of the five in
 *            that order, each padded with zeros to a multiple of 8
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
    val all = records.toIndexedSeq
    // Each string's UTF-8 length, worked out once: it sizes the row, and tells how to write the string.
    val keyBytes = new Array[Int](all.size)
    val sequenceNumberBytes = new Array[Int](all.size)
    val rowBytes = new Array[Int](all.size)
    var i = 0
    while (i < all.size) {
      val r = all(i)
      keyBytes(i) = Utf8.length(r.partitionKey)
      sequenceNumberBytes(i) = Utf8.length(r.sequenceNumber)
      rowBytes(i) = constantBytes + padded(keyBytes(i)) + padded(r.data.length) + padded(sequenceNumberBytes(i))
      i += 1
    }
    val chunks = ArrayBuffer.empty[Array[Byte]]
    i = 0
    while (i < all.size) {
      // A chunk takes records until it holds ChunkBytes or more: as many as fit, and at least one.
      var end = i
      var bytes = ChunkHeaderBytes.toLong
      while (end < all.size && bytes < ChunkBytes) {
        bytes += RecordHeaderBytes + rowBytes(end)
        end += 1
      }
      val chunk = new Array[Byte](Math.toIntExact(bytes))
      putInt(chunk, 0, Version)
      putInt(chunk, 4, chunk.length)
      var at = ChunkHeaderBytes
      while (i < end) {
        at = writeRecord(chunk, at, all(i), rowBytes(i), keyBytes(i), sequenceNumberBytes(i), stream, shardId)
        i += 1
      }
      chunks += chunk
    }
    chunks.toVector
  }

  /**
   * Writes one record at `at` of a fresh (zeroed) chunk, its row of `rowBytes` and its partition key and
   * sequence number of `keyBytes` and `sequenceNumberBytes` in UTF-8; returns where the next one starts.
   */
  private def writeRecord(
      chunk: Array[Byte],
      at: Int,
      record: KinesisRecord,
      rowBytes: Int,
      keyBytes: Int,
      sequenceNumberBytes: Int,
      stream: Array[Byte],
      shardId: Array[Byte]): Int = {
    putInt(chunk, at, rowBytes)
    putInt(chunk, at + 4, record.subSequenceNumber.fold(-1)(Math.toIntExact))
    val row = at + RecordHeaderBytes
    // The null bit set stays clear: every column has a value.
    var tail = RowFixedBytes
    def variable(column: Int, length: Int): Int = {
      putLong(chunk, row + wordAt(column), (tail.toLong << 32) | length)
      val start = row + tail
      tail += padded(length)
      start
    }
    Utf8.write(record.partitionKey, keyBytes, chunk, variable(PartitionKey, keyBytes))
    System.arraycopy(record.data, 0, chunk, variable(Data, record.data.length), record.data.length)
    System.arraycopy(stream, 0, chunk, variable(Stream, stream.length), stream.length)
    System.arraycopy(shardId, 0, chunk, variable(ShardId, shardId.length), shardId.length)
    Utf8.write(record.sequenceNumber, sequenceNumberBytes, chunk, variable(SequenceNumber, sequenceNumberBytes))
    putLong(chunk, row + wordAt(ArrivalTimestamp), record.approximateArrivalMillis * 1000L)
    row + rowBytes
  }

  /** A length rounded up to a multiple of 8, as UnsafeRow pads its variable-length values. */
  def padded(length: Int): Int = (length + 7) & ~7

  def getInt(bytes: Array[Byte], at: Int): Int = Platform.getInt(bytes, Platform.BYTE_ARRAY_OFFSET + at.toLong)
  def getLong(bytes: Array[Byte], at: Int): Long = Platform.getLong(bytes, Platform.BYTE_ARRAY_OFFSET + at.toLong)
  private def putInt(bytes: Array[Byte], at: Int, value: Int): Unit =
    Platform.putInt(bytes, Platform.BYTE_ARRAY_OFFSET + at.toLong, value)
  private def putLong(bytes: Array[Byte], at: Int, value: Long): Unit =
    Platform.putLong(bytes, Platform.BYTE_ARRAY_OFFSET + at.toLong, value)

  /**
   * A string's UTF-8 bytes written where they go, without an array per string for the ASCII strings
   * Kinesis' sequence numbers always are and partition keys nearly always are.
   */
  private object Utf8 {
    def length(s: String): Int = {
      var i = 0
      while (i < s.length && s.charAt(i) < 0x80) i += 1
      if (i == s.length) s.length else s.getBytes(UTF_8).length
    }

    /** Writes `s`, of `length` UTF-8 bytes ([[length]]): a string as long in bytes as in chars is ASCII. */
    def write(s: String, length: Int, to: Array[Byte], at: Int): Unit =
      if (length == s.length) {
        var i = 0
        while (i < length) {
          to(at + i) = s.charAt(i).toByte
          i += 1
        }
      } else {
        System.arraycopy(s.getBytes(UTF_8), 0, to, at, length)
      }
  }
}
