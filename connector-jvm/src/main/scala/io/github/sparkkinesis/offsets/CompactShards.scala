// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import java.io.ByteArrayOutputStream
import java.math.BigInteger
import java.nio.charset.StandardCharsets.UTF_8
import java.util.zip.CRC32
import java.util.Base64

import scala.collection.mutable

/**
 * One stream's shard positions as one string, the form version 5 offsets hold them in (`"shards":"<text>"`):
 * 28 to 35 bytes a shard after 56-digit sequence numbers, where the JSON form of versions 1 to 4 takes 105,
 * which matters because Spark writes the whole offset to the offset log every batch. Driver; stateless, so
 * thread-safe.
 *
 * The text is base64url without padding (JSON-safe, so it needs no escaping) of
 * {{{
 * entry* crc32
 * entry    = head [id] [body]
 * head     = varint((number delta << 4) | (text id << 3) | kind)
 * id       = varint(length), UTF-8             only with text id = 1
 * body     = at_timestamp: zigzag varint(ms - previous ms); at, after: sequence; after with sub: sequence, varint(sub)
 * sequence = varint((shared << 1) | text), varint(length of rest), rest
 * crc32    = 4 bytes, big-endian, of every byte before them
 * }}}
 * Shards come sorted by id. An id `shardId-` + 12 digits, as Kinesis names shards, is its number's distance
 * from the previous such shard's (0 before the first): 1 between neighbours, so with the kind a shard's head
 * is one byte; any other id is written out (text id = 1, delta 0). Kinds: 0 trim_horizon, 1 at_timestamp,
 * 2 at, 3 after, 4 after with a sub-sequence number, 5 shard_end. Timestamps are deltas too, as `latest`
 * gives every open shard the same one.
 *
 * A sequence number's bytes are those of its unsigned big-endian integer (24 for the 56 digits Kinesis
 * gives), of which the first `shared` are the previous sequence number's first bytes: shards of one stream
 * share their leading digits in part. A sequence number that its integer would not give back exactly (one
 * with a leading zero, or anything but ASCII digits) is its UTF-8 text instead (text = 1), so nothing is
 * changed on the way through. Nothing is deflated: at 10,000 shards deflating saved 2 bytes a shard of 28
 * (the integers leave little to find), and a deflater's output may change with the zlib a JVM has, while the
 * same offset must always give the same text. The checksum makes a damaged or cut string fail as damaged
 * rather than read as other positions.
 */
private[sparkkinesis] object CompactShards {
  private val NumberedPrefix = "shardId-"
  private val NumberDigits = 12
  private val MaxNumber = 999999999999L

  private val TrimHorizonKind = 0
  private val AtTimestampKind = 1
  private val AtKind = 2
  private val AfterKind = 3
  private val AfterSubKind = 4
  private val ShardEndKind = 5

  private val TextId = 8
  private val ChecksumBytes = 4

  /** The positions of one stream's shards, by shard id; the same positions always give the same text. */
  def encode(shards: Map[String, ShardPosition]): String = {
    val out = new ByteArrayOutputStream(shards.size * 24 + ChecksumBytes)
    var number = 0L
    var timestamp = 0L
    var sequence = Array.emptyByteArray
    shards.toSeq.sortBy(_._1).foreach { case (id, position) =>
      numberOf(id) match {
        case Some(n) =>
          writeVarint(out, ((n - number) << 4) | kindOf(position))
          number = n
        case None =>
          writeVarint(out, TextId | kindOf(position))
          writeBytes(out, id.getBytes(UTF_8))
      }
      position match {
        case ShardPosition.AtTimestamp(ms) =>
          writeVarint(out, zigzag(ms - timestamp))
          timestamp = ms
        case ShardPosition.At(seq) => sequence = writeSequence(out, seq, sequence)
        case ShardPosition.After(seq, sub) =>
          sequence = writeSequence(out, seq, sequence)
          sub.foreach(writeVarint(out, _))
        case ShardPosition.TrimHorizon | ShardPosition.ShardEnd =>
      }
    }
    val checksum = crc(out.toByteArray, out.size)
    (ChecksumBytes - 1 to 0 by -1).foreach(i => out.write((checksum >>> (8 * i)).toInt))
    Base64.getUrlEncoder.withoutPadding.encodeToString(out.toByteArray)
  }

  /** The positions `text` holds by shard id, in id order, or what is wrong with it. */
  def decode(text: String): Either[String, Seq[(String, ShardPosition)]] =
    try Right(read(text))
    catch { case Damaged(problem) => Left(problem) }

  private final case class Damaged(problem: String) extends RuntimeException(problem, null, false, false)

  private def damaged(problem: String): Nothing = throw Damaged(problem)

  private def kindOf(position: ShardPosition): Int = position match {
    case ShardPosition.TrimHorizon => TrimHorizonKind
    case ShardPosition.AtTimestamp(_) => AtTimestampKind
    case ShardPosition.At(_) => AtKind
    case ShardPosition.After(_, None) => AfterKind
    case ShardPosition.After(_, Some(_)) => AfterSubKind
    case ShardPosition.ShardEnd => ShardEndKind
  }

  /** The number of an id Kinesis would give, `shardId-` and exactly 12 ASCII digits; None for any other. */
  private def numberOf(id: String): Option[Long] =
    if (id.length == NumberedPrefix.length + NumberDigits && id.startsWith(NumberedPrefix) &&
      id.substring(NumberedPrefix.length).forall(c => c >= '0' && c <= '9'))
      Some(id.substring(NumberedPrefix.length).toLong)
    else None

  private def numberedId(n: Long): String = {
    val digits = n.toString
    NumberedPrefix + "0" * (NumberDigits - digits.length) + digits
  }

  /**
   * Whether `seq` is what its integer prints: "0", or ASCII digits without a leading zero. `BigInteger`
   * would also read other scripts' digits, and drop leading zeros, and neither would come back the same.
   */
  private def isCanonicalInteger(seq: String): Boolean =
    seq.nonEmpty && seq.forall(c => c >= '0' && c <= '9') && (seq.length == 1 || seq.charAt(0) != '0')

  /** Writes `seq` after `previous` (the previous sequence number's bytes); returns its own bytes. */
  private def writeSequence(out: ByteArrayOutputStream, seq: String, previous: Array[Byte]): Array[Byte] = {
    val asInteger = isCanonicalInteger(seq)
    val bytes = if (asInteger) magnitude(new BigInteger(seq)) else seq.getBytes(UTF_8)
    var shared = 0
    while (shared < bytes.length && shared < previous.length && bytes(shared) == previous(shared)) shared += 1
    writeVarint(out, (shared.toLong << 1) | (if (asInteger) 0 else 1))
    writeVarint(out, bytes.length - shared)
    out.write(bytes, shared, bytes.length - shared)
    bytes
  }

  /** Unsigned big-endian bytes, without the sign byte `toByteArray` may lead with; none for 0. */
  private def magnitude(n: BigInteger): Array[Byte] = {
    val signed = n.toByteArray
    if (signed(0) == 0) java.util.Arrays.copyOfRange(signed, 1, signed.length) else signed
  }

  private def writeBytes(out: ByteArrayOutputStream, bytes: Array[Byte]): Unit = {
    writeVarint(out, bytes.length)
    out.write(bytes, 0, bytes.length)
  }

  /** Unsigned LEB128: 7 bits a byte, low bits first; up to 10 bytes for 64 bits. */
  private def writeVarint(out: ByteArrayOutputStream, value: Long): Unit = {
    var rest = value
    while ((rest & ~0x7fL) != 0) {
      out.write(((rest & 0x7f) | 0x80).toInt)
      rest >>>= 7
    }
    out.write(rest.toInt)
  }

  /** Small magnitudes of either sign as small unsigned numbers: 0, -1, 1, -2, ... as 0, 1, 2, 3, ... */
  private def zigzag(n: Long): Long = (n << 1) ^ (n >> 63)

  private def unzigzag(n: Long): Long = (n >>> 1) ^ -(n & 1)

  private def crc(bytes: Array[Byte], length: Int): Long = {
    val c = new CRC32()
    c.update(bytes, 0, length)
    c.getValue
  }

  private def read(text: String): Seq[(String, ShardPosition)] = {
    val all =
      try Base64.getUrlDecoder.decode(text)
      catch { case _: IllegalArgumentException => damaged("it is not base64url text") }
    if (all.length < ChecksumBytes) damaged("it is too short to hold its checksum")
    val end = all.length - ChecksumBytes
    val stored = (0 until ChecksumBytes).foldLeft(0L)((c, i) => (c << 8) | (all(end + i) & 0xffL))
    if (stored != crc(all, end)) damaged("its checksum does not match: it was changed or cut short")
    val in = new Input(all, end)
    val positions = Vector.newBuilder[(String, ShardPosition)]
    val ids = mutable.HashSet.empty[String]
    var number = 0L
    var timestamp = 0L
    var sequence = Array.emptyByteArray
    var count = 0
    while (in.more) {
      count += 1
      val head = in.varint(s"shard $count")
      val id =
        if ((head & TextId) == 0) {
          number += head >>> 4
          if (number > MaxNumber) damaged(s"shard $count has a number of more than $NumberDigits digits")
          numberedId(number)
        } else if ((head >>> 4) != 0) damaged(s"shard $count has both a number and an id")
        else new String(in.bytes(in.length(s"the id of shard $count"), s"the id of shard $count"), UTF_8)
      if (!ids.add(id)) damaged(s"shard '$id' is listed twice")
      def nextSequence(): String = {
        val what = s"the sequence number of shard '$id'"
        val seqHead = in.varint(what)
        val shared = seqHead >>> 1
        if (shared > sequence.length) damaged(s"$what shares more bytes with the one before than it has")
        val rest = in.bytes(in.length(what), what)
        val bytes = java.util.Arrays.copyOf(sequence, shared.toInt + rest.length)
        System.arraycopy(rest, 0, bytes, shared.toInt, rest.length)
        sequence = bytes
        if ((seqHead & 1) == 0) new BigInteger(1, bytes).toString
        else {
          val seq = new String(bytes, UTF_8)
          if (!SequenceNumbers.isDecimal(seq)) damaged(s"$what is not a number: $seq")
          seq
        }
      }
      val position = (head & 7).toInt match {
        case TrimHorizonKind => ShardPosition.TrimHorizon
        case AtTimestampKind =>
          timestamp += unzigzag(in.varint(s"the timestamp of shard '$id'"))
          ShardPosition.AtTimestamp(timestamp)
        case AtKind => ShardPosition.At(nextSequence())
        case AfterKind => ShardPosition.After(nextSequence())
        case AfterSubKind =>
          val seq = nextSequence()
          val sub = in.varint(s"the sub-sequence number of shard '$id'")
          if (sub < 0) damaged(s"shard '$id' has a sub-sequence number that is not a number: $sub")
          ShardPosition.After(seq, Some(sub))
        case ShardEndKind => ShardPosition.ShardEnd
        case other => damaged(s"shard '$id' has an unknown kind $other")
      }
      positions += id -> position
    }
    positions.result()
  }

  /** Reads `data` up to `end`; runs out with `Damaged`, never past the end. */
  private final class Input(data: Array[Byte], end: Int) {
    private var at = 0

    def more: Boolean = at < end

    def varint(what: String): Long = {
      var value = 0L
      var shift = 0
      var continues = true
      while (continues) {
        if (at >= end) damaged(s"it ends inside $what")
        val b = data(at)
        at += 1
        // The tenth byte holds the 64th bit only.
        if (shift == 63 && (b & 0xfe) != 0) damaged(s"$what has a number too large for 64 bits")
        value |= (b & 0x7fL) << shift
        shift += 7
        continues = (b & 0x80) != 0
      }
      value
    }

    /** A length that the bytes left can hold. */
    def length(what: String): Int = {
      val n = varint(what)
      if (n < 0 || n > end - at) damaged(s"it ends inside $what")
      n.toInt
    }

    def bytes(n: Int, what: String): Array[Byte] = {
      if (n > end - at) damaged(s"it ends inside $what")
      at += n
      java.util.Arrays.copyOfRange(data, at - n, at)
    }
  }
}
