// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

/**
 * Protobuf's wire encoding read from a slice of a byte array, trusting nothing in it: varints (at most 10
 * bytes), little-endian fixed32 and fixed64, and length prefixes, each checked against the bytes left
 * before anything is read or allocated; unknown fields skipped by their wire type, groups included (up to
 * [[ProtoDecoder.MaxDepth]] deep). A failure is a [[ProtoWireReader.Malformed]] saying what was wrong,
 * never the bytes.
 *
 * Runs on executors. Not thread-safe: one [[ProtoDecoder]] owns one, and [[reset]] points it at each record.
 */
private[protobuf] final class ProtoWireReader {
  import ProtoWireReader._

  private var bytes: Array[Byte] = Array.emptyByteArray
  var pos: Int = 0
  private var end = 0

  def reset(data: Array[Byte], offset: Int, length: Int): Unit = {
    require(offset >= 0 && length >= 0 && offset.toLong + length <= data.length, "slice out of the array")
    bytes = data
    pos = offset
    end = offset + length
  }

  /** Where the slice ends. */
  def limit: Int = end

  def varint(): Long = {
    var value = 0L
    var shift = 0
    while (shift < 64) {
      if (pos >= end) throw new Malformed("the record ends inside a varint")
      val b = bytes(pos)
      pos += 1
      value |= (b & 0x7fL) << shift
      if (b >= 0) return value
      shift += 7
    }
    throw new Malformed("a varint is longer than 10 bytes")
  }

  def fixed32(): Int = {
    need(4, "a fixed32 value")
    val v =
      (bytes(pos) & 0xff) | (bytes(pos + 1) & 0xff) << 8 | (bytes(pos + 2) & 0xff) << 16 | (bytes(pos + 3) & 0xff) << 24
    pos += 4
    v
  }

  def fixed64(): Long = {
    val low = fixed32() & 0xffffffffL
    val high = fixed32() & 0xffffffffL
    low | high << 32
  }

  /** A length prefix, checked to fit in what is left before `within` (the enclosing message's end). */
  def length(within: Int): Int = {
    val n = varint()
    if (n < 0 || n > within - pos)
      throw new Malformed(s"a length of $n bytes runs past the end of its message (${within - pos} bytes left)")
    n.toInt
  }

  /** Reads a length prefix (see [[length]]): where the value it prefixes ends. */
  def end(within: Int): Int = {
    val n = length(within)
    pos + n
  }

  /** `n` bytes copied into a new array. */
  def take(n: Int): Array[Byte] = {
    need(n, "a length-delimited value")
    val out = java.util.Arrays.copyOfRange(bytes, pos, pos + n)
    pos += n
    out
  }

  def array: Array[Byte] = bytes

  private def need(n: Int, what: String): Unit =
    if (n > end - pos) throw new Malformed(s"the record ends inside $what: $n bytes needed, ${end - pos} left")

  /** Skips the value of a field of `wireType` (its tag read), a group to its end-group tag. */
  def skip(wireType: Int, number: Int, within: Int, depth: Int): Unit = wireType match {
    case 0 => varint()
    case 1 => need(8, "a fixed64 value"); pos += 8
    case 2 => val n = length(within); pos += n
    case 5 => need(4, "a fixed32 value"); pos += 4
    case 3 =>
      if (depth >= ProtoDecoder.MaxDepth)
        throw new Malformed(s"groups nest deeper than ${ProtoDecoder.MaxDepth} levels")
      var closed = false
      while (!closed) {
        if (pos >= within) throw new Malformed(s"group $number has no end-group tag")
        val tag = varint()
        val (n, w) = ((tag >>> 3).toInt, (tag & 7).toInt)
        if (w == 4) {
          if (n != number) throw new Malformed(s"group $number ends with the end-group tag of field $n")
          closed = true
        } else skip(w, n, within, depth + 1)
      }
    case 4 => throw new Malformed(s"an end-group tag of field $number has no start")
    case other => throw new Malformed(s"field $number has the wire type $other, which does not exist")
  }
}

private[protobuf] object ProtoWireReader {

  /** Bytes that are no Protobuf wire encoding; the message says why. */
  final class Malformed(message: String) extends RuntimeException(message, null, false, false)
}
