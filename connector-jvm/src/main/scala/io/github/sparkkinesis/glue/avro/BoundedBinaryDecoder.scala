// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import java.io.IOException
import java.nio.charset.StandardCharsets
import java.nio.ByteBuffer

import org.apache.avro.io.Decoder
import org.apache.avro.util.Utf8

/**
 * Avro's binary encoding read from a slice of a byte array that holds one datum, trusting nothing in it.
 * Avro's own BinaryDecoder allocates what a length prefix asks for before it looks at how many bytes are
 * left, so a corrupt record could make an executor allocate up to 2 GB for one string. Here every length
 * and count is checked against the bytes left first, a varint longer than its type allows is an error, and
 * the items of arrays and maps are counted against a budget: a datum holds at most as many items as it has
 * bytes, plus [[BoundedBinaryDecoder.FreeItems]] items that take none (an array of nulls or of empty
 * records), so that no record of a few bytes can claim billions of them.
 *
 * A failure is a [[BoundedBinaryDecoder.Malformed]], an IOException (Avro's decoding methods throw those).
 * Strings and bytes are read into new arrays of exactly their length, which the values keep: one copy from
 * the record to the row.
 *
 * Runs on executors. Not thread-safe: one [[AvroDecoder]] owns one, and [[reset]] points it at each record.
 */
private[avro] final class BoundedBinaryDecoder extends Decoder {
  import BoundedBinaryDecoder._

  private var bytes: Array[Byte] = Array.emptyByteArray
  private var pos = 0
  private var end = 0
  private var itemBudget = 0L

  /** Reads the next datum from `length` bytes of `data` from `offset`. */
  def reset(data: Array[Byte], offset: Int, length: Int): this.type = {
    require(offset >= 0 && length >= 0 && offset.toLong + length <= data.length, "slice out of the array")
    bytes = data
    pos = offset
    end = offset + length
    itemBudget = length.toLong + FreeItems
    this
  }

  /** How many bytes of the slice are left unread. */
  def remaining: Int = end - pos

  private def need(n: Long, what: String): Unit =
    if (n > remaining)
      throw new Malformed(s"the record ends inside $what: $n bytes needed, $remaining left")

  private def readVarint(maxBytes: Int, what: String): Long = {
    var value = 0L
    var shift = 0
    var i = 0
    while (true) {
      if (pos >= end) throw new Malformed(s"the record ends inside $what")
      val b = bytes(pos) & 0xff
      pos += 1
      value |= (b & 0x7fL) << shift
      i += 1
      if ((b & 0x80) == 0) return value
      if (i == maxBytes) throw new Malformed(s"$what is encoded in more than $maxBytes bytes")
      shift += 7
    }
    value
  }

  private def unzigzag(n: Long): Long = (n >>> 1) ^ -(n & 1)

  override def readNull(): Unit = ()

  override def readBoolean(): Boolean = {
    need(1, "a boolean")
    val b = bytes(pos)
    pos += 1
    if (b == 0) false
    else if (b == 1) true
    else throw new Malformed(s"a boolean is the byte $b, not 0 or 1")
  }

  override def readInt(): Int = {
    val n = readVarint(5, "an int")
    if ((n >>> 32) != 0) throw new Malformed("an int is encoded with more than 32 bits")
    unzigzag(n).toInt
  }

  override def readLong(): Long = unzigzag(readVarint(10, "a long"))

  override def readFloat(): Float = {
    need(4, "a float")
    val bits = (bytes(pos) & 0xff) | (bytes(pos + 1) & 0xff) << 8 | (bytes(pos + 2) & 0xff) << 16 |
      (bytes(pos + 3) & 0xff) << 24
    pos += 4
    java.lang.Float.intBitsToFloat(bits)
  }

  override def readDouble(): Double = {
    need(8, "a double")
    var bits = 0L
    var i = 7
    while (i >= 0) {
      bits = (bits << 8) | (bytes(pos + i) & 0xffL)
      i -= 1
    }
    pos += 8
    java.lang.Double.longBitsToDouble(bits)
  }

  /** The length prefix of a string or bytes, checked against what is left. */
  private def readLength(what: String): Int = {
    val n = readLong()
    if (n < 0) throw new Malformed(s"$what has the negative length $n")
    need(n, what)
    n.toInt
  }

  private def take(n: Int): Array[Byte] = {
    val out = java.util.Arrays.copyOfRange(bytes, pos, pos + n)
    pos += n
    out
  }

  override def readString(old: Utf8): Utf8 = new Utf8(take(readLength("a string")))

  override def readString(): String = {
    val n = readLength("a string")
    val s = new String(bytes, pos, n, StandardCharsets.UTF_8)
    pos += n
    s
  }

  override def skipString(): Unit = skip(readLength("a string"))

  override def readBytes(old: ByteBuffer): ByteBuffer = ByteBuffer.wrap(take(readLength("bytes")))

  override def skipBytes(): Unit = skip(readLength("bytes"))

  /** Skips `n` bytes, which are there: `pos += readLength(...)` would read `pos` before the length moves it. */
  private def skip(n: Int): Unit = pos += n

  override def readFixed(out: Array[Byte], start: Int, length: Int): Unit = {
    need(length, "a fixed")
    System.arraycopy(bytes, pos, out, start, length)
    pos += length
  }

  override def skipFixed(length: Int): Unit = {
    need(length, "a fixed")
    pos += length
  }

  override def readEnum(): Int = readInt()

  override def readIndex(): Int = readInt()

  /**
   * The item count of the next block, taken from the budget; a block given with its size in bytes (a
   * negative count) reads that size too. 0 ends the array or map.
   */
  private def readBlockCount(what: String): Long = {
    var count = readLong()
    if (count < 0) {
      if (count == Long.MinValue) throw new Malformed(s"$what has a block of ${Long.MinValue} items")
      count = -count
      readBlockSize(what)
    }
    spend(count, what)
  }

  private def readBlockSize(what: String): Long = {
    val size = readLong()
    if (size < 0) throw new Malformed(s"$what has a block of negative size $size")
    size
  }

  private def spend(count: Long, what: String): Long = {
    itemBudget -= count
    if (itemBudget < 0)
      throw new Malformed(s"$what claims $count items, more than a record of its size can hold")
    count
  }

  override def readArrayStart(): Long = readBlockCount("an array")

  override def arrayNext(): Long = readBlockCount("an array")

  override def readMapStart(): Long = readBlockCount("a map")

  override def mapNext(): Long = readBlockCount("a map")

  override def skipArray(): Long = skipBlocks("an array")

  override def skipMap(): Long = skipBlocks("a map")

  /**
   * Skips the blocks that give their size in bytes and returns the item count of the first that does not,
   * for the caller to skip item by item (0 when the array or map ends), as Avro's decoders do.
   */
  private def skipBlocks(what: String): Long = {
    while (true) {
      val count = readLong()
      if (count >= 0) return spend(count, what)
      val size = readBlockSize(what)
      need(size, what)
      pos += size.toInt
    }
    0L
  }
}

private[avro] object BoundedBinaryDecoder {

  /** The items of arrays and maps a datum may hold beyond one per byte: those that take no bytes. */
  val FreeItems: Long = 1L << 20

  /** Bytes that are no Avro datum: what the message says is wrong, at the point it went wrong. */
  final class Malformed(message: String) extends IOException(message)
}
