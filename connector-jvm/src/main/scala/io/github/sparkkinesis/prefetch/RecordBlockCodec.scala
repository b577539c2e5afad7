// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream}
import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.client.KinesisRecord

/**
 * How records are laid out in a block: chunks of at most about [[RecordBlockCodec.ChunkBytes]] bytes, each
 * a run of records written as (partition key, data, sequence number, arrival time, sub-sequence number or
 * -1). A compact format of our own, so that blocks cost neither Java serialization per record nor a Kryo
 * registration, whatever `spark.serializer` is. Stateless and thread-safe.
 */
private[sparkkinesis] object RecordBlockCodec {

  /** Chunks stay small enough for Spark's memory store to place and spill them one by one. */
  val ChunkBytes: Int = 4 * 1024 * 1024

  private val Version: Byte = 2

  def encode(records: Iterable[KinesisRecord]): Seq[Array[Byte]] = {
    val chunks = ArrayBuffer.empty[Array[Byte]]
    var buffer = new ByteArrayOutputStream(math.min(ChunkBytes, 64 * 1024))
    var out = newChunk(buffer)
    records.foreach { record =>
      if (buffer.size() >= ChunkBytes) {
        out.flush()
        chunks += buffer.toByteArray
        buffer = new ByteArrayOutputStream(64 * 1024)
        out = newChunk(buffer)
      }
      writeString(out, record.partitionKey)
      out.writeInt(record.data.length)
      out.write(record.data)
      writeString(out, record.sequenceNumber)
      out.writeLong(record.approximateArrivalMillis)
      out.writeLong(record.subSequenceNumber.getOrElse(-1L))
    }
    out.flush()
    if (buffer.size() > 1) chunks += buffer.toByteArray
    chunks.toVector
  }

  def decode(chunks: Iterator[Array[Byte]]): Iterator[KinesisRecord] = chunks.flatMap(decodeChunk)

  private def decodeChunk(chunk: Array[Byte]): Iterator[KinesisRecord] = {
    val in = new DataInputStream(new ByteArrayInputStream(chunk))
    val version = in.readByte()
    if (version != Version) throw new IllegalStateException(s"Prefetched block chunk has unknown version $version")
    Iterator.continually(in.available() > 0).takeWhile(identity).map { _ =>
      val key = readString(in)
      val data = new Array[Byte](in.readInt())
      in.readFully(data)
      val seq = readString(in)
      val arrival = in.readLong()
      KinesisRecord(key, data, seq, arrival, Some(in.readLong()).filter(_ >= 0))
    }
  }

  private def newChunk(buffer: ByteArrayOutputStream): DataOutputStream = {
    val out = new DataOutputStream(buffer)
    out.writeByte(Version)
    out
  }

  private def writeString(out: DataOutputStream, s: String): Unit = {
    val bytes = s.getBytes(UTF_8)
    out.writeInt(bytes.length)
    out.write(bytes)
  }

  private def readString(in: DataInputStream): String = {
    val bytes = new Array[Byte](in.readInt())
    in.readFully(bytes)
    new String(bytes, UTF_8)
  }
}
