// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.util.zip.{DataFormatException, Deflater, Inflater}
import java.util.UUID

/**
 * The AWS Glue Schema Registry's framing of a record: an 18-byte header (the header version, 3; the
 * compression, 0 for none or 5 for zlib over the payload; the schema version's UUID as two big-endian longs),
 * then the payload. Stateless and thread-safe; runs wherever records are decoded or encoded.
 */
private[sparkkinesis] object GlueFraming {

  val HeaderVersion: Byte = 3
  val HeaderLength: Int = 18
  private val NoCompression: Byte = 0
  private val ZlibCompression: Byte = 5

  /**
   * What a compressed payload may inflate to at most: a record of Kinesis' largest size (10 MiB) compresses
   * a few times over at best, and a hostile record must not take an executor's memory.
   */
  val MaxInflatedBytes: Int = 256 * 1024 * 1024

  /** A record's header: the schema version it names, and where its payload is. */
  final case class Frame(schemaVersionId: UUID, compressed: Boolean) {
    def compression: String = if (compressed) "zlib" else "none"
  }

  /** The record's header, or why the record is not framed by the registry, as a phrase. */
  def read(record: Array[Byte]): Either[String, Frame] =
    if (record.isEmpty) Left("it is empty")
    else if (record(0) != HeaderVersion)
      Left(f"its first byte is 0x${record(0) & 0xff}%02x, not the registry's header version 0x03")
    else if (record.length < HeaderLength) Left(s"it ends within the registry's $HeaderLength-byte header")
    else if (record(1) != NoCompression && record(1) != ZlibCompression)
      Left(f"its compression byte is 0x${record(1) & 0xff}%02x, neither 0x00 (none) nor 0x05 (zlib)")
    else {
      val id = ByteBuffer.wrap(record, 2, 16)
      Right(Frame(new UUID(id.getLong, id.getLong), record(1) == ZlibCompression))
    }

  /**
   * The payload of a framed record, inflated if it is compressed, as (bytes, offset, length): an uncompressed
   * payload is not copied.
   *
   * @throws java.util.zip.DataFormatException if a compressed payload is not zlib data, or inflates to more
   *                                           than `maxInflated` bytes
   */
  def payload(record: Array[Byte], frame: Frame, maxInflated: Int = MaxInflatedBytes): (Array[Byte], Int, Int) =
    if (!frame.compressed) (record, HeaderLength, record.length - HeaderLength)
    else {
      val inflated = inflate(record, HeaderLength, record.length - HeaderLength, maxInflated)
      (inflated, 0, inflated.length)
    }

  /** A record framed for schema version `id`, its payload compressed with zlib if `compress`. */
  def frame(id: UUID, payload: Array[Byte], compress: Boolean): Array[Byte] = {
    val body = if (compress) deflate(payload) else payload
    val out = ByteBuffer.allocate(HeaderLength + body.length)
    out.put(HeaderVersion).put(if (compress) ZlibCompression else NoCompression)
    out.putLong(id.getMostSignificantBits).putLong(id.getLeastSignificantBits).put(body)
    out.array()
  }

  private def inflate(bytes: Array[Byte], offset: Int, length: Int, maxInflated: Int): Array[Byte] = {
    val inflater = new Inflater()
    try {
      inflater.setInput(bytes, offset, length)
      val out = new ByteArrayOutputStream(math.max(64, math.min(maxInflated, length * 4)))
      val chunk = new Array[Byte](64 * 1024)
      while (!inflater.finished()) {
        val n = inflater.inflate(chunk)
        if (n == 0 && !inflater.finished() && (inflater.needsInput() || inflater.needsDictionary()))
          throw new DataFormatException("the zlib data ends before its end")
        out.write(chunk, 0, n)
        if (out.size() > maxInflated) throw new DataFormatException(s"it inflates to more than $maxInflated bytes")
      }
      out.toByteArray
    } finally inflater.end()
  }

  private def deflate(bytes: Array[Byte]): Array[Byte] = {
    val deflater = new Deflater()
    try {
      deflater.setInput(bytes)
      deflater.finish()
      val out = new ByteArrayOutputStream(math.max(64, bytes.length / 2))
      val chunk = new Array[Byte](64 * 1024)
      while (!deflater.finished()) out.write(chunk, 0, deflater.deflate(chunk))
      out.toByteArray
    } finally deflater.end()
  }
}
