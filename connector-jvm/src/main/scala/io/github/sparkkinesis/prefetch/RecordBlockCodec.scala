// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.ByteBuffer

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.client.KinesisRecord

/**
 * How records are laid out in a block: chunks of at most about [[RecordBlockCodec.ChunkBytes]] bytes, each
 * a version byte and a run of records written as (partition key, data, sequence number, arrival time,
 * sub-sequence number or -1), strings as UTF-8 and every length and number big-endian. A compact format of
 * our own, so that blocks cost neither Java serialization per record nor a Kryo registration, whatever
 * `spark.serializer` is. Each chunk is sized before it is written, so encoding allocates one array per
 * chunk; [[RecordCursor]] reads the records in place. Stateless and thread-safe.
 */
private[sparkkinesis] object RecordBlockCodec {

  /** Chunks stay small enough for Spark's memory store to place and spill them one by one. */
  val ChunkBytes: Int = 4 * 1024 * 1024

  val Version: Byte = 2

  /** The bytes of a record's fields other than its strings and data: three lengths and two numbers. */
  private val FixedBytes = 3 * 4 + 2 * 8

  def encode(records: Iterable[KinesisRecord]): Seq[Array[Byte]] = {
    val sizes = records.iterator.map(encodedSize).toArray
    val chunks = ArrayBuffer.empty[Array[Byte]]
    val it = records.iterator
    var i = 0
    while (i < sizes.length) {
      // A chunk takes records until it holds ChunkBytes or more, as many as fit and at least one.
      var end = i
      var bytes = 1L
      while (end < sizes.length && bytes < ChunkBytes) {
        bytes += sizes(end)
        end += 1
      }
      val out = ByteBuffer.allocate(bytes.toInt)
      out.put(Version)
      while (i < end) {
        write(out, it.next())
        i += 1
      }
      chunks += out.array()
    }
    chunks.toVector
  }

  def decode(chunks: Iterator[Array[Byte]]): RecordCursor = new RecordCursor(chunks)

  private def encodedSize(r: KinesisRecord): Int =
    FixedBytes + utf8Length(r.partitionKey) + r.data.length + utf8Length(r.sequenceNumber)

  private def write(out: ByteBuffer, r: KinesisRecord): Unit = {
    writeString(out, r.partitionKey)
    out.putInt(r.data.length)
    out.put(r.data)
    writeString(out, r.sequenceNumber)
    out.putLong(r.approximateArrivalMillis)
    out.putLong(r.subSequenceNumber.getOrElse(-1L))
  }

  /** Partition keys are mostly, and sequence numbers always, ASCII: written char by char, no copy made. */
  private def writeString(out: ByteBuffer, s: String): Unit =
    if (isAscii(s)) {
      out.putInt(s.length)
      var i = 0
      while (i < s.length) {
        out.put(s.charAt(i).toByte)
        i += 1
      }
    } else {
      val bytes = s.getBytes(UTF_8)
      out.putInt(bytes.length)
      out.put(bytes)
    }

  private def utf8Length(s: String): Int = if (isAscii(s)) s.length else s.getBytes(UTF_8).length

  private def isAscii(s: String): Boolean = {
    var i = 0
    while (i < s.length && s.charAt(i) < 0x80) i += 1
    i == s.length
  }
}
