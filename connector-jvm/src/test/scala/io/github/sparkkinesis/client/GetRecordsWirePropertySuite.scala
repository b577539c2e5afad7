// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.io.{ByteArrayInputStream, IOException}

import io.github.sparkkinesis.testing.SeededProperties
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * GetRecords answers are outside input: any answer Kinesis can write reads back as it was written, in either
 * wire, and any other bytes are refused with an error that says so (an `IOException` of the codec, or
 * [[GetRecordsWire.Unreadable]]), never with anything else.
 */
class GetRecordsWirePropertySuite extends AnyFunSuite with SeededProperties {
  import GetRecordsParsingSuite.{Cbor, Json, Written}

  private val keys: Gen[String] = Gen.frequency(
    1 -> Gen.const(null),
    2 -> Gen.oneOf("a", "ключ", "キー", "\uD83D\uDD11", "k" * 256, "é" * 256),
    6 -> Gen.nonEmptyListOf(Gen.oneOf(Gen.alphaNumChar, Gen.choose('\u00a0', '\u2fff'))).map(_.take(256).mkString)
  )

  private val data: Gen[Array[Byte]] =
    Gen
      .frequency(6 -> Gen.choose(0, 64), 3 -> Gen.choose(65, 5000), 1 -> Gen.choose(60000, 200000))
      .flatMap(n => Gen.const(n).map(size => Array.tabulate(size)(i => (i * 31 + size).toByte)))

  private val records: Gen[Seq[Written]] = Gen.choose(0, 30).flatMap { n =>
    Gen.listOfN(
      n,
      for {
        key <- keys
        bytes <- data
        digits <- Gen.choose(20, 60)
        arrival <- Gen.choose(0L, 4102444800000L) // to 2100
      } yield Written(key, bytes, "4" + "9" * (digits - 1), arrival)
    )
  }

  private def read(body: Array[Byte], contentType: String): RecordBatch =
    GetRecordsWire.read(new ByteArrayInputStream(body), Some(contentType))

  private def same(read: RecordBatch, written: Seq[Written]): Unit = {
    assert(read.records.map(_.partitionKey) == written.map(_.key))
    assert(read.records.map(_.sequenceNumber) == written.map(_.sequence))
    assert(read.records.map(_.approximateArrivalMillis) == written.map(_.arrivalMillis))
    assert(read.records.zip(written).forall { case (r, w) => java.util.Arrays.equals(r.data, w.data) })
    assert(read.records.forall(_.subSequenceNumber.isEmpty))
  }

  test("any answer Kinesis can write, in CBOR (of any lengths) or JSON, reads back as written") {
    forAll(records, Gen.option(Gen.alphaNumStr), Gen.choose(0L, Long.MaxValue), Gen.oneOf(0, 1, 2)) {
      (written, next, behind, wire) =>
        val (body, contentType) = wire match {
          case 0 => (Cbor.answer(written, next, behind), Cbor.contentType)
          case 1 => (Cbor.answer(written, next, behind, definiteLengths = true), Cbor.contentType)
          case _ => (Json.answer(written, next, behind), Json.contentType)
        }
        val batch = read(body, contentType)
        same(batch, written)
        assert(batch.nextIterator == next && batch.millisBehindLatest == behind)
    }
  }

  /** Only the documented refusals: the codec's `IOException`s and GetRecordsWire's own. */
  private def refusedOrRead(body: Array[Byte], contentType: String): Unit =
    try read(body, contentType)
    catch {
      case _: IOException | _: GetRecordsWire.Unreadable => ()
    }

  test("an answer cut anywhere, or with any byte changed, is read or refused, never anything else") {
    val answers = for {
      written <- records.map(_.take(5))
      json <- Gen.oneOf(false, true)
    } yield
      if (json) (Json.answer(written, Some("n"), 0L), Json.contentType)
      else (Cbor.answer(written, Some("n"), 0L, definiteLengths = true), Cbor.contentType)
    forAll(answers, Gen.choose(0.0, 1.0), Gen.choose(0, 255), Gen.oneOf(false, true)) {
      case ((body, contentType), where, value, cut) =>
        val at = (where * (body.length - 1)).toInt
        val changed = if (cut) body.take(at) else body.updated(at, value.toByte)
        refusedOrRead(changed, contentType)
    }
  }

  test("any bytes at all, as either wire, are read or refused, never anything else") {
    val bytes = Gen.choose(0, 300).flatMap(n => Gen.listOfN(n, Gen.choose(0, 255).map(_.toByte))).map(_.toArray)
    forAll(bytes, Gen.oneOf(Cbor.contentType, Json.contentType))((body, contentType) =>
      refusedOrRead(body, contentType))
  }

  test("a field of any other kind than Kinesis writes is refused, in either wire") {
    // Each field the connector reads, given each kind of value in turn, in an answer otherwise whole.
    val kinds = Seq("\"text\"", "\"!!not base64!!\"", "1", "-1.5e300", "true", "null", "{}", "[]", "{\"a\":[1]}")
    val recordFields = Seq("SequenceNumber", "PartitionKey", "Data", "ApproximateArrivalTimestamp")
    val record = Map(
      "SequenceNumber" -> "\"1\"",
      "PartitionKey" -> "\"k\"",
      "Data" -> "\"AQID\"",
      "ApproximateArrivalTimestamp" -> "1.5")
    def json(fields: Map[String, String]) = fields.map { case (k, v) => s""""$k":$v""" }.mkString("{", ",", "}")
    def answer(recordValue: Map[String, String], top: Map[String, String]) =
      json(
        Map("Records" -> s"[${json(recordValue)}]", "NextShardIterator" -> "\"n\"", "MillisBehindLatest" -> "0") ++ top)
    val bodies = recordFields.flatMap(f => kinds.map(k => answer(record.updated(f, k), Map.empty))) ++
      Seq("Records", "NextShardIterator", "MillisBehindLatest").flatMap(f =>
        kinds.map(k => answer(record, Map(f -> k))))
    assert(read(answer(record, Map.empty).getBytes("UTF-8"), Json.contentType).records.size == 1)
    bodies.foreach { body =>
      refusedOrRead(body.getBytes("UTF-8"), Json.contentType)
      refusedOrRead(Cbor.of(body), Cbor.contentType)
    }
  }

  test("a CBOR length of gigabytes in a small answer is refused as cut short, not allocated") {
    // A record whose Data says 0x7fffffff bytes follow, in an answer of a few bytes.
    val written = Cbor.answer(Seq(Written("k", Array[Byte](1, 2, 3), "1", 0L)), Some("n"), 0L, definiteLengths = true)
    val at = written.indexOfSlice(Array[Byte](0x43, 1, 2, 3)) // a byte string of 3: 0x43
    assert(at > 0)
    val huge =
      written.take(at) ++ Array[Byte](0x5a, 0x7f, 0xff.toByte, 0xff.toByte, 0xff.toByte) ++ written.drop(at + 4)
    intercept[IOException](read(huge, Cbor.contentType))
  }
}
