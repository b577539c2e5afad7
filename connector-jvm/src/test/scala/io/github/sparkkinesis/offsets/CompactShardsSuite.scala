// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import java.util.zip.CRC32
import java.util.Base64

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class CompactShardsSuite extends AnyFunSuite {
  import ShardPosition._

  private def roundTrip(shards: Map[String, ShardPosition]): Unit = {
    val text = CompactShards.encode(shards)
    assert(text.forall(c => c.isLetterOrDigit && c < 128 || c == '-' || c == '_'), text)
    val back = CompactShards.decode(text)
    assert(back.map(_.toMap) == Right(shards), text)
    assert(back.map(_.map(_._1)) == Right(shards.keys.toSeq.sorted), "in shard id order")
  }

  private def id(n: Long) = f"shardId-$n%012d"

  test("every kind of position reads back as it was written") {
    roundTrip(
      Map(
        id(0) -> TrimHorizon,
        id(1) -> AtTimestamp(1593105825000L),
        id(2) -> At("49590338271490256608559692538361571095921575989136588898"),
        id(3) -> After("49590338271490256608559692538361571095921575989136588898"),
        id(4) -> After("49590338271512557353758223161502723813054493766225182754", Some(0L)),
        id(5) -> After("49590338271512557353758223161502723813054493766225182755", Some(Long.MaxValue)),
        id(7) -> ShardEnd,
        id(999999999999L) -> AtTimestamp(1593105825000L)
      ))
    roundTrip(Map.empty)
  }

  test("timestamps of any sign and size read back, however far apart") {
    val instants = Seq(0L, -1L, 1L, Long.MinValue, Long.MaxValue, 1593105825000L, -1593105825000L)
    roundTrip(instants.zipWithIndex.map { case (ms, i) => id(i.toLong) -> AtTimestamp(ms) }.toMap)
  }

  test("shard ids not of Kinesis' form are kept as text, among numbered ones") {
    roundTrip(
      Map(
        "shardId-1" -> After("1"),
        "shardId-0000000000001" -> After("2"),
        "shardId-00000000000x" -> TrimHorizon,
        "shardid-000000000001" -> ShardEnd,
        "" -> AtTimestamp(5),
        "шард-€" -> At("3"),
        id(1) -> After("4"),
        id(12) -> After("5"),
        "zzz" -> After("6", Some(2L))
      ))
  }

  test("sequence numbers of 1 to 129 digits, 0 and leading zeros read back exactly") {
    val random = new Random(7)
    val lengths =
      (1 to 129).map(n => "123456789".charAt(random.nextInt(9)).toString + Seq.fill(n - 1)(random.nextInt(10)).mkString)
    val odd = Seq("0", "00", "007", "0123456789", "10", "9" * 129, "1" + "0" * 128)
    val all = lengths ++ odd
    roundTrip(all.zipWithIndex.map { case (seq, i) => id(i.toLong) -> After(seq) }.toMap)
    roundTrip(all.zipWithIndex.map { case (seq, i) => id(i.toLong) -> At(seq) }.toMap)
    roundTrip(all.reverse.zipWithIndex.map { case (seq, i) => id(i.toLong) -> After(seq, Some(i.toLong)) }.toMap)
  }

  test("a sequence number in other scripts' digits, which no entry takes any longer, is refused as damaged") {
    val text = CompactShards.encode(Map(id(0) -> After("١٢٣")))
    assert(
      CompactShards.decode(text) == Left("the sequence number of shard 'shardId-000000000000' is not a number: ١٢٣"))
  }

  test("the same positions give the same text, whatever order they were added in") {
    val random = new Random(11)
    val shards = (0 until 500).map { i =>
      id(i.toLong * 3) -> After("4959033827" + Seq.fill(46)(random.nextInt(10)).mkString)
    }
    val text = CompactShards.encode(shards.toMap)
    assert(CompactShards.encode(random.shuffle(shards).toMap) == text)
    assert(CompactShards.encode(CompactShards.decode(text).toOption.get.toMap) == text)
  }

  /** `payload` with its checksum, as base64url text: damage that the checksum does not catch. */
  private def withChecksum(payload: Int*): String = {
    val bytes = payload.map(_.toByte).toArray
    val crc = new CRC32()
    crc.update(bytes, 0, bytes.length)
    val c = crc.getValue
    Base64.getUrlEncoder.withoutPadding.encodeToString(bytes ++ (3 to 0 by -1).map(i => (c >>> (8 * i)).toByte))
  }

  test("a damaged string says what is wrong, never throws") {
    val good = CompactShards.encode(Map(id(0) -> After("49590338271490256608559692538361571095921575989136588898")))
    assert(CompactShards.decode(withChecksum(0x03, 0x00, 0x01, 0x05)) == Right(Seq(id(0) -> After("5"))))
    val flipped = good.updated(5, if (good(5) == 'A') 'B' else 'A')
    val damaged = Seq(
      "a+b/" -> "not base64url",
      "a" -> "not base64url",
      "AAA" -> "too short to hold its checksum",
      good.dropRight(3) -> "checksum does not match",
      good.drop(4) -> "checksum does not match",
      flipped -> "checksum does not match",
      withChecksum(0x06) -> "unknown kind 6",
      withChecksum(0x07) -> "unknown kind 7",
      withChecksum(0x03) -> "ends inside the sequence number of shard 'shardId-000000000000'",
      withChecksum(0x03, 0x00, 0x05, 0x01) -> "ends inside the sequence number",
      withChecksum(0x03, 0x04, 0x01, 0x05) -> "shares more bytes with the one before than it has",
      withChecksum(0x04, 0x00, 0x01, 0x05) -> "ends inside the sub-sequence number",
      withChecksum(0x01) -> "ends inside the timestamp",
      withChecksum(0x80) -> "ends inside shard 1",
      withChecksum(0x00, 0x00) -> "shard 'shardId-000000000000' is listed twice",
      withChecksum(0x0d, 0x01, 0x41, 0x0d, 0x01, 0x41) -> "shard 'A' is listed twice",
      withChecksum(0x0d, 0x05, 0x41) -> "ends inside the id of shard 1",
      withChecksum(0x1d, 0x01, 0x41) -> "shard 1 has both a number and an id",
      withChecksum(0x03, 0x01, 0x01, 0x41) -> "is not a number: A",
      withChecksum(0x03, 0x01, 0x00) -> "is not a number: ",
      withChecksum(0x80, 0x80, 0xc4, 0xd2, 0xd4, 0xd1, 0x03) -> "shard 1 has a number of more than 12 digits",
      withChecksum(Seq.fill(9)(0xff) :+ 0x02: _*) -> "too large for 64 bits",
      withChecksum(
        Seq(0x04, 0x00, 0x01, 0x05) ++ Seq.fill(9)(0xff) :+ 0x01: _*) -> "sub-sequence number that is not a number"
    )
    damaged.foreach { case (text, problem) =>
      val result = CompactShards.decode(text)
      assert(result.left.exists(_.contains(problem)), s"$text: $result")
    }
  }
}
