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
 * `spark.serializer` is. Each chunk is sized before it is written and written into one array;
 * [[BlockCursor]] reads the records in place. Stateless and thread-safe.
 */
private[sparkkinesis] object RecordBlockCodec {

  /** Chunks stay small enough for Spark's memory store to place and spill them one by one. */
  val ChunkBytes: Int = 4 * 1024 * 1024

  val Version: Byte = 2

  /** The bytes of a record's fields other than its strings and data: three lengths and two numbers. */
  private val FixedBytes = 3 * 4 + 2 * 8

  def encode(records: Iterable[KinesisRecord]): Seq[Array[Byte]] = {
    val all = records.toArray
    // Keys and sequence numbers as UTF-8 first (the JDK copies an ASCII string's bytes at once), to size
    // each chunk before it is written.
    val keys = all.map(_.partitionKey.getBytes(UTF_8))
    val sequenceNumbers = all.map(_.sequenceNumber.getBytes(UTF_8))
    def size(i: Int): Long = FixedBytes + keys(i).length + all(i).data.length + sequenceNumbers(i).length
    val chunks = ArrayBuffer.empty[Array[Byte]]
    var i = 0
    while (i < all.length) {
      // A chunk takes records until it holds ChunkBytes or more, as many as fit and at least one.
      var end = i
      var bytes = 1L
      while (end < all.length && bytes < ChunkBytes) {
        bytes += size(end)
        end += 1
      }
      val out = ByteBuffer.allocate(bytes.toInt)
      out.put(Version)
      while (i < end) {
        val r = all(i)
        out.putInt(keys(i).length).put(keys(i))
        out.putInt(r.data.length).put(r.data)
        out.putInt(sequenceNumbers(i).length).put(sequenceNumbers(i))
        out.putLong(r.approximateArrivalMillis)
        out.putLong(r.subSequenceNumber.getOrElse(-1L))
        i += 1
      }
      chunks += out.array()
    }
    chunks.toVector
  }

  def decode(chunks: Iterator[Array[Byte]]): BlockCursor = new BlockCursor(chunks)
}
