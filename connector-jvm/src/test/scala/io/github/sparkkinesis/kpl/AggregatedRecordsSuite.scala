// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest

import io.github.sparkkinesis.kpl.AggregatedRecords.{Aggregate, Corrupt, Plain}
import io.github.sparkkinesis.testing.SeededProperties
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

class AggregatedRecordsSuite extends AnyFunSuite with SeededProperties {

  private def bytes(hex: String): Array[Byte] =
    hex.split(" ").filter(_.nonEmpty).map(Integer.parseInt(_, 16).toByte)

  private def framed(body: Array[Byte]): Array[Byte] =
    AggregatedRecords.Magic ++ body ++ MessageDigest.getInstance("MD5").digest(body)

  private def data(s: String) = s.getBytes(UTF_8)

  // partition_key_table "pk"; records [{partition_key_index 0, data "abc"}], written out by hand from the spec.
  private val oneRecord = bytes("0A 02 70 6B  1A 07 08 00 1A 03 61 62 63")

  test("an aggregate written out by hand from the format decodes to its user records") {
    // The same record with a tag (field 4: {key "k"}), and a second key table entry with an explicit hash key.
    val body = bytes(
      "0A 02 70 6B  0A 02 71 72  12 02 31 30" +
        "  1A 0C 08 00 1A 03 61 62 63 22 03 0A 01 6B" +
        "  1A 07 08 01 10 00 1A 01 7A")
    assert(
      AggregatedRecords.decode(framed(body)) == Aggregate(
        Vector(UserRecord("pk", None, data("abc")), UserRecord("qr", Some("10"), data("z")))))
  }

  test("encoding writes the format: key table, then records pointing into it, then the digest") {
    assert(AggregatedRecords.encode(Seq(UserRecord("pk", None, data("abc")))).toSeq == framed(oneRecord).toSeq)
  }

  test("any user records survive encoding and decoding, in order, keys stored once") {
    val record = for {
      key <- Gen.oneOf("a", "b", "key-with-ünicode", "k" * 256)
      hashKey <- Gen.option(Gen.oneOf("0", "340282366920938463463374607431768211455"))
      payload <- Gen.containerOf[Array, Byte](Gen.choose(Byte.MinValue, Byte.MaxValue))
    } yield UserRecord(key, hashKey, payload)
    forAll(Gen.nonEmptyListOf(record)) { records =>
      assert(AggregatedRecords.decode(AggregatedRecords.encode(records)) == Aggregate(records.toVector))
    }
  }

  test("data that does not start with the magic bytes is a plain record") {
    assert(AggregatedRecords.decode(Array.emptyByteArray) == Plain)
    assert(AggregatedRecords.decode(data("hello, plain record with enough bytes")) == Plain)
    assert(AggregatedRecords.decode(AggregatedRecords.Magic ++ Array[Byte](1, 2)) == Plain, "too short to be one")
  }

  test("an aggregate whose digest does not match, or whose contents are broken, is corrupt") {
    val good = framed(oneRecord)
    val flipped = good.clone()
    flipped(6) = (flipped(6) ^ 1).toByte
    assert(AggregatedRecords.decode(flipped) == Corrupt("its MD5 digest does not match its contents"))

    val truncated = AggregatedRecords.decode(framed(oneRecord.dropRight(2)))
    assert(truncated.isInstanceOf[Corrupt], truncated)
    val badIndex = AggregatedRecords.decode(framed(bytes("0A 02 70 6B  1A 07 08 05 1A 03 61 62 63")))
    assert(badIndex == Corrupt("not a valid protobuf message: partition key index 5 outside its table of 1"))
    val noData = AggregatedRecords.decode(framed(bytes("0A 02 70 6B  1A 02 08 00")))
    assert(noData == Corrupt("not a valid protobuf message: a record without data"))
  }
}
