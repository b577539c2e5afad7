// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.unsafe.Platform

/**
 * Protobuf's wire encoding written into one growable byte array, emptied for each record: varints, zigzag,
 * little-endian fixed32 and fixed64, length-delimited bytes, and the length prefix of a nested message or
 * packed run, which is known only once its content is written.
 *
 * Lengths are back-patched: [[beginLength]] reserves one byte before the content, [[endLength]] writes the
 * length there once the content is written, and only when the length needs more than one byte (128 bytes
 * of content or more) moves the content up by the bytes it lacks. Each record is so written in one pass
 * over its values, with no size computed beforehand, and the bytes are those protobuf-java writes (lengths
 * as the shortest varint). Computing sizes first, as protobuf-java does, would walk every nested value
 * twice, or keep a size per nested value for the second walk; the move costs a copy of the content of the
 * nested messages of 128 bytes or more only, done with `System.arraycopy`.
 *
 * Runs on executors; not thread-safe: one [[ProtoEncoder]] owns one.
 */
private[protobuf] final class ProtoWireWriter {

  private var buffer = new Array[Byte](256)
  private var size = 0

  def reset(): Unit = size = 0

  /** The bytes written since [[reset]], copied. */
  def toByteArray: Array[Byte] = java.util.Arrays.copyOf(buffer, size)

  /** Where the next byte goes. */
  def position: Int = size

  /** Whether the `length` bytes from `from` are well-formed UTF-8. */
  def validUtf8(from: Int, length: Int): Boolean = ProtoDecoder.validUtf8(buffer, from, length)

  private def ensure(more: Int): Unit =
    if (more > buffer.length - size) {
      val needed = size.toLong + more
      if (needed > ProtoWireWriter.MaxSize)
        throw new ProtoEncodeException(
          "The record's Protobuf message takes more than 2 GB, which Protobuf does not allow. Write smaller rows.")
      buffer =
        java.util.Arrays.copyOf(buffer, math.max(needed, math.min(buffer.length * 2L, ProtoWireWriter.MaxSize)).toInt)
    }

  /** An unsigned varint of the 64 bits of `value` (a negative value takes 10 bytes). */
  def varint(value: Long): Unit = {
    ensure(10)
    var v = value
    while ((v & ~0x7fL) != 0) {
      buffer(size) = ((v & 0x7f) | 0x80).toByte
      size += 1
      v >>>= 7
    }
    buffer(size) = v.toByte
    size += 1
  }

  /** An unsigned varint of the 32 bits of `value`: at most 5 bytes. */
  def uint32(value: Int): Unit = varint(value & 0xffffffffL)

  /** A tag: field `number`, wire type `wire`. */
  def tag(number: Int, wire: Int): Unit = uint32(number << 3 | wire)

  def fixed32(value: Int): Unit = {
    ensure(4)
    buffer(size) = value.toByte
    buffer(size + 1) = (value >> 8).toByte
    buffer(size + 2) = (value >> 16).toByte
    buffer(size + 3) = (value >> 24).toByte
    size += 4
  }

  def fixed64(value: Long): Unit = {
    fixed32(value.toInt)
    fixed32((value >>> 32).toInt)
  }

  def byte(value: Int): Unit = {
    ensure(1)
    buffer(size) = value.toByte
    size += 1
  }

  /** `bytes`, length-delimited. */
  def bytes(bytes: Array[Byte]): Unit = {
    uint32(bytes.length)
    ensure(bytes.length)
    System.arraycopy(bytes, 0, buffer, size, bytes.length)
    size += bytes.length
  }

  /** The bytes of `s`, length-delimited. */
  def utf8(s: UTF8String): Unit = {
    val n = s.numBytes()
    uint32(n)
    ensure(n)
    s.writeToMemory(buffer, Platform.BYTE_ARRAY_OFFSET.toLong + size)
    size += n
  }

  /** Reserves the length prefix of content about to be written; [[endLength]] of what it returns writes it. */
  def beginLength(): Int = {
    ensure(1)
    size += 1
    size - 1
  }

  /** Writes, at `at` (what [[beginLength]] returned), the length of what was written since. */
  def endLength(at: Int): Unit = {
    val length = size - at - 1
    if (length < 0x80) buffer(at) = length.toByte
    else {
      val prefix = ProtoWireWriter.varintSize(length)
      ensure(prefix - 1)
      System.arraycopy(buffer, at + 1, buffer, at + prefix, length)
      size += prefix - 1
      var v = length
      var i = at
      while ((v & ~0x7f) != 0) {
        buffer(i) = ((v & 0x7f) | 0x80).toByte
        i += 1
        v >>>= 7
      }
      buffer(i) = v.toByte
    }
  }
}

private[protobuf] object ProtoWireWriter {

  /** The most a record may take: Protobuf's limit, 2 GB less a little, as Java's arrays allow. */
  val MaxSize: Long = Int.MaxValue - 8L

  /** How many bytes the unsigned varint of `value` (not negative) takes. */
  def varintSize(value: Int): Int =
    if (value < (1 << 7)) 1
    else if (value < (1 << 14)) 2
    else if (value < (1 << 21)) 3
    else if (value < (1 << 28)) 4
    else 5
}
