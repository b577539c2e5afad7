// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.util

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8

/**
 * The few pieces of the protobuf wire format the connector reads and writes: varints and
 * length-delimited fields, and skipping the other wire types. Enough for the KPL's aggregated records and
 * the `Any` a Spark Connect client wraps the connector's calls in, without a protobuf runtime in the
 * connector jar.
 */
private[sparkkinesis] object ProtobufWire {
  val Varint = 0
  val Fixed64 = 1
  val LengthDelimited = 2
  val Fixed32 = 5

  /** Reads fields from `bytes(from until until)`; every read fails with [[Malformed]] past the end. */
  final class Reader(bytes: Array[Byte], from: Int, until: Int) {
    private var at = from

    def hasMore: Boolean = at < until

    /** The next field's number and wire type. */
    def tag(): (Int, Int) = {
      val t = varint()
      if (t > Int.MaxValue || t <= 0) throw new Malformed(s"field tag $t")
      ((t >>> 3).toInt, (t & 7).toInt)
    }

    def varint(): Long = {
      var result = 0L
      var shift = 0
      var more = true
      while (more) {
        if (at >= until) throw new Malformed("a varint runs past the end")
        if (shift >= 64) throw new Malformed("a varint longer than 10 bytes")
        val b = bytes(at)
        at += 1
        result |= (b & 0x7fL) << shift
        shift += 7
        more = (b & 0x80) != 0
      }
      result
    }

    /** The bounds of the next length-delimited value, which is then skipped. */
    def lengthDelimited(): (Int, Int) = {
      val length = varint()
      if (length < 0 || length > until - at) throw new Malformed(s"a field of $length bytes past the end")
      val start = at
      at += length.toInt
      (start, at)
    }

    def bytesField(): Array[Byte] = {
      val (start, end) = lengthDelimited()
      java.util.Arrays.copyOfRange(bytes, start, end)
    }

    def stringField(): String = {
      val (start, end) = lengthDelimited()
      new String(bytes, start, end - start, UTF_8)
    }

    /** Skips a field of the given wire type. */
    def skip(wireType: Int): Unit = wireType match {
      case Varint => varint()
      case Fixed64 => advance(8)
      case LengthDelimited => lengthDelimited()
      case Fixed32 => advance(4)
      case other => throw new Malformed(s"wire type $other")
    }

    private def advance(n: Int): Unit = {
      if (until - at < n) throw new Malformed("a fixed-size field past the end")
      at += n
    }
  }

  final class Malformed(what: String) extends RuntimeException(s"not a valid protobuf message: $what")

  /** Writes fields in order. */
  final class Writer {
    private val out = new ByteArrayOutputStream()

    def varintField(field: Int, value: Long): Writer = {
      varint((field.toLong << 3) | Varint)
      varint(value)
      this
    }

    def bytesField(field: Int, value: Array[Byte]): Writer = {
      varint((field.toLong << 3) | LengthDelimited)
      varint(value.length.toLong)
      out.write(value)
      this
    }

    def stringField(field: Int, value: String): Writer = bytesField(field, value.getBytes(UTF_8))

    def toByteArray: Array[Byte] = out.toByteArray

    private def varint(value: Long): Unit = {
      var v = value
      while ((v & ~0x7fL) != 0) {
        out.write(((v & 0x7f) | 0x80).toInt)
        v >>>= 7
      }
      out.write(v.toInt)
    }
  }
}
