// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import io.github.sparkkinesis.glue.avro.CatalystValues.comparable
import io.github.sparkkinesis.glue.protobuf.ProtoSamples._
import io.github.sparkkinesis.glue.protobuf.WireWriter._
import org.apache.spark.sql.types.StructType
import org.scalatest.funsuite.AnyFunSuite

/**
 * Records' Protobuf messages and the values a user reads from them. The outside oracle is Python's protobuf
 * (7.36) with protoc from grpcio-tools (1.85): the hex strings below are what `SerializeToString()` wrote for
 * the messages in each test's comment, made once with
 * `python -m grpc_tools.protoc -I. --python_out=. shop.proto legacy.proto` and the message set as shown;
 * the same script printed the registry's message index of shop.proto by MessageIndexFinder's rule
 * (`['shop.Order', 'shop.Order.Line', 'shop.Order.StockEntry', 'shop.Other']`). The other records are
 * written with [[WireWriter]], as no library would write them.
 */
class ProtoDecoderSuite extends AnyFunSuite {

  private def decoded(file: ProtoFile, message: String, bytes: Array[Byte]): Map[String, Any] = {
    val decoder = new ProtoDecoder(file, message)
    comparable(decoder.decode(bytes, 0, bytes.length), decoder.dataType).asInstanceOf[Seq[(String, Any)]].toMap
  }

  private def failure(file: ProtoFile, message: String, bytes: Array[Byte]): String =
    intercept[ProtoDecodeException](decoded(file, message, bytes)).getMessage

  private def row(fields: (String, Any)*): Seq[(String, Any)] = fields

  test("every type of a proto3 message, as Python's protobuf wrote it") {
    // Order(id=-5, item="pomme é", delta=-3, big=4000000000, f64=2**64-1, price=2.5, ratio=0.25, paid=True,
    //   blob=b"\x00\xff", status=SHIPPED, counts=[1, -1, 300], tags=["a", "b"], stock={"x": 3},
    //   line=Line(sku="s1", qty=2), lines=[Line(sku="s2"), Line(qty=0)], cash=0, maybe=0,
    //   at=(1764300000 s, 123456789 ns), took=(-2 s, -500000000 ns), note=StringValue(""))
    val bytes = hex(shopOrderHex)
    val order = decoded(shop, "shop.Order", bytes)
    assert(order("id") == -5L)
    assert(order("item") == "pomme é")
    assert(order("delta") == -3L)
    assert(order("big") == 4000000000L - (1L << 32)) // uint32 as int, its bits kept, as Spark reads it
    assert(order("f64") == -1L)
    assert(order("price") == ("double", java.lang.Double.doubleToLongBits(2.5)))
    assert(order("ratio") == ("float", java.lang.Float.floatToIntBits(0.25f)))
    assert(order("paid") == true)
    assert(order("blob") == Seq[Byte](0, -1))
    assert(order("status") == "SHIPPED")
    assert(order("counts") == Seq(1L, -1L, 300L)) // packed, as proto3 writes repeated scalars
    assert(order("tags") == Seq("a", "b"))
    assert(order("stock") == (("map", Map("x" -> 3L), 1)))
    assert(order("line") == row("sku" -> "s1", "qty" -> 2L))
    // A proto3 field holding its zero value is not written, and reads as null, as Spark reads it.
    assert(order("lines") == Seq(row("sku" -> "s2", "qty" -> null), row("sku" -> null, "qty" -> null)))
    assert(order("card") == null && order("cash") == 0L) // a oneof member and proto3 optional keep their zero
    assert(order("maybe") == 0L)
    assert(order("at") == 1764300000L * 1000000L + 123456L)
    assert(order("took") == -2500000L)
    assert(order("note") == row("value" -> null))
  }

  test("a proto3 message of zero values only is all null; repeated fields and maps empty") {
    // Order(id=0, item="", status=NEW) writes no byte at all.
    val order = decoded(shop, "shop.Order", Array.emptyByteArray)
    assert(order.collect { case (k, v) if v != null => k }.toSet == Set("counts", "tags", "stock", "lines"))
    assert(order("stock") == (("map", Map.empty, 0)))
    // The same zero values written explicitly (another writer may) read as null too.
    val explicit = decoded(shop, "shop.Order", int(1, 0) ++ str(2, "") ++ int(10, 0) ++ tag(6, 1) ++ fixed64(0))
    assert(Seq("id", "item", "status", "price").forall(explicit(_) == null))
    // but a negative zero is no zero value to protobuf-java
    assert(decoded(shop, "shop.Order", tag(6, 1) ++ fixed64(java.lang.Double.doubleToLongBits(-0.0)))("price") != null)
  }

  test("proto2: required, declared defaults, packed sint64, unpacked fixed32, a closed enum") {
    // Reading(id=9, kind=B, deltas=[-1, 1, -64], raw=[7, 4294967295])
    val reading = decoded(legacy, "legacy.Reading", hex(legacyReadingHex))
    assert(
      reading == Map(
        "id" -> 9L,
        "level" -> 7L, // its declared default
        "kind" -> "B",
        "deltas" -> Seq(-1L, 1L, -64L),
        "raw" -> Seq(7L, -1L)))
    // Reading(id=1)
    assert(
      decoded(legacy, "legacy.Reading", hex("0801")) == Map(
        "id" -> 1L,
        "level" -> 7L,
        "kind" -> null,
        "deltas" -> Nil,
        "raw" -> Nil))
    // A number the closed enum lacks is an unknown field: the field is absent.
    assert(decoded(legacy, "legacy.Reading", int(1, 1) ++ int(3, 5))("kind") == null)
    // A proto2 zero is a value: presence is explicit.
    assert(decoded(legacy, "legacy.Reading", int(1, 1) ++ int(2, 0))("level") == 0L)
    assert(failure(legacy, "legacy.Reading", int(2, 3)).contains("it lacks the required field Reading.id"))
  }

  test("an open enum's unknown number, as protobuf-java names it; the first alias's name") {
    assert(decoded(shop, "shop.Order", int(10, 7))("status") == "UNKNOWN_ENUM_VALUE_Status_7")
    val aliased = ProtoParser.parse(
      "syntax = \"proto3\"; message M { E e = 1; } enum E { option allow_alias = true; Z = 0; A = 1; B = 1; }")
    assert(decoded(aliased, "M", int(1, 1))("e") == "A")
  }

  test("schema evolution by field number: unknown fields of every wire type skipped, groups included") {
    val unknown = int(99, 5) ++ tag(98, 1) ++ fixed64(1) ++ str(97, "new") ++ tag(96, 5) ++ fixed32(1) ++
      tag(95, 3) ++ int(1, 4) ++ tag(94, 3) ++ tag(94, 4) ++ tag(95, 4)
    val order = decoded(shop, "shop.Order", unknown ++ int(1, 42) ++ unknown)
    assert(order("id") == 42L)
    // A field of the reader written with another wire type is an unknown field too, as protobuf-java reads it.
    assert(decoded(shop, "shop.Order", str(1, "x") ++ int(4, 1))("id") == null)
  }

  test("Protobuf's merge: last scalar wins, repeated append (packed or not), messages merge, oneof keeps the last") {
    val bytes = int(1, 1) ++ int(1, 2) ++ int(11, 5) ++ len(11, varint(6) ++ varint(7)) ++
      len(14, str(1, "a")) ++ len(14, int(2, 3)) ++ str(16, "card") ++ int(17, 9) ++
      len(13, str(1, "k") ++ int(2, 1)) ++ len(13, str(1, "k") ++ int(2, 2)) ++ len(13, int(2, 5))
    val order = decoded(shop, "shop.Order", bytes)
    assert(order("id") == 2L)
    assert(order("counts") == Seq(5L, 6L, 7L))
    assert(order("line") == row("sku" -> "a", "qty" -> 3L))
    assert(order("card") == null && order("cash") == 9L)
    assert(order("stock") == (("map", Map("k" -> 2L, "" -> 5L), 2))) // a missing key is its zero value
    val cardLast = decoded(shop, "shop.Order", int(17, 9) ++ str(16, "c"))
    assert(cardLast("card") == "c" && cardLast("cash") == null)
  }

  test("malformed records fail naming the field and what is wrong, never the data") {
    val cases = Seq(
      str(2, "secret").dropRight(
        2) -> "reading field Order.item): a length of 6 bytes runs past the end of its message (4 bytes left)",
      len(14, str(1, "secret")).dropRight(1) -> "(reading field Order.line)",
      len(14, str(1, "abc") ++ tag(2, 0)) -> "reading field Order.line.qty): the record ends inside a varint",
      (tag(1, 0) ++ Array.fill(11)(0xff.toByte)) -> "a varint is longer than 10 bytes",
      tag(5, 6) -> "field 5 has the wire type 6, which does not exist",
      tag(5, 4) -> "an end-group tag of field 5 has no start",
      tag(5, 3) -> "group 5 has no end-group tag",
      (tag(5, 3) ++ tag(6, 4)) -> "group 5 ends with the end-group tag of field 6",
      str(2, "\u00e9").dropRight(0).updated(3, 0xff.toByte) -> "a string is not valid UTF-8",
      len(11, fixed32(1)).updated(1, 3.toByte).take(4) -> "reading field Order.counts[]",
      len(18, int(1, Long.MaxValue)) -> "a Timestamp of 9223372036854775807 seconds is out of Spark's range",
      int(0, 1) -> "a tag has the field number 0"
    )
    cases.foreach { case (bytes, expected) =>
      val message = failure(shop, "shop.Order", bytes)
      assert(message.contains(expected), message)
      assert(message.startsWith(s"A record's message of ${bytes.length} bytes is no valid Protobuf message shop.Order"))
      assert(!message.contains("secret"))
    }
  }

  test("nesting is bounded: groups deeper than MaxDepth fail, and no length is trusted") {
    val deep = (1 to ProtoDecoder.MaxDepth + 1).map(_ => tag(5, 3)).reduce(_ ++ _) ++
      (1 to ProtoDecoder.MaxDepth + 1).map(_ => tag(5, 4)).reduce(_ ++ _)
    assert(failure(shop, "shop.Order", deep).contains(s"groups nest deeper than ${ProtoDecoder.MaxDepth} levels"))
    val huge = tag(9, 2) ++ varint(Int.MaxValue.toLong * 4)
    assert(failure(shop, "shop.Order", huge).contains("runs past the end of its message"))
  }

  test("a message read from the middle of an array, and the decoder reused record after record") {
    val decoder = new ProtoDecoder(shop, "shop.Other")
    assert(decoder.dataType == StructType.fromDDL("x string"))
    val data = Array[Byte](1, 2) ++ hex("0a0179") ++ Array[Byte](3) // Other(x="y") between other bytes
    assert(comparable(decoder.decode(data, 2, 3), decoder.dataType) == row("x" -> "y"))
    assert(comparable(decoder.decode(str(1, "z"), 0, 3), decoder.dataType) == row("x" -> "z"))
  }
}
