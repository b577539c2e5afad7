// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import io.github.sparkkinesis.glue.avro.CatalystValues._
import io.github.sparkkinesis.glue.protobuf.ProtoSamples._
import io.github.sparkkinesis.glue.protobuf.WireWriter._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/**
 * Rows written as the registry's Protobuf payloads: the bytes Python's protobuf writes for the same message
 * (the outside oracle on every line; protobuf-java's are checked on the Spark 4 lines, by
 * `ProtoEncoderOracleSuite`), what [[ProtoDecoder]] reads back, the structs refused and the rows that fail,
 * each naming the column and never the data.
 */
class ProtoEncoderSuite extends AnyFunSuite {

  private def encoder(file: ProtoFile, message: String, struct: StructType): ProtoEncoder =
    new ProtoEncoder(file, message, struct)

  /** The message's bytes, after the index, which `index` must be. */
  private def message(bytes: Array[Byte], index: Int = 0): Array[Byte] = {
    assert(bytes.head == index, "the registry's message index first")
    bytes.tail
  }

  private def decoded(file: ProtoFile, name: String, payload: Array[Byte]): Any = {
    val decoder = new ProtoDecoder(file, name)
    val (_, used) = GsrMessageIndex.read(payload, 0, payload.length)
    comparable(decoder.decode(payload, used, payload.length - used), decoder.dataType)
  }

  private def refusal(file: ProtoFile, name: String, ddl: String): String =
    intercept[ProtoSchemaException](encoder(file, name, StructType.fromDDL(ddl))).getMessage

  private val orderType = ProtoSchemas.sqlType(shop, "shop.Order")

  private val order = row(
    -5L,
    utf8("pomme é"),
    -3,
    4000000000L.toInt, // uint32 as Spark reads it: an int of its bits
    -1L,
    2.5,
    0.25f,
    true,
    Array[Byte](0, -1),
    utf8("SHIPPED"),
    array(1, -1, 300),
    array(utf8("a"), utf8("b")),
    map(utf8("x") -> 3L),
    row(utf8("s1"), 2),
    array(row(utf8("s2"), null), row(null, 0)),
    null,
    0,
    1764300000L * 1000000L + 123456L,
    -2500000L,
    row(utf8("")),
    0
  )

  test("every type of a proto3 message, byte for byte as Python's protobuf wrote it; read back by the decoder") {
    val bytes = encoder(shop, "shop.Order", orderType).encode(order)
    assert(message(bytes).toSeq == hex(shopOrderMicrosHex).toSeq)
    // The decoder reads what a user wrote, but for the zero of a proto3 field without presence: null.
    val back = decoded(shop, "shop.Order", bytes).asInstanceOf[Seq[(String, Any)]].toMap
    val written = comparable(order, orderType).asInstanceOf[Seq[(String, Any)]].toMap
    assert(
      back == written
        .updated("lines", Seq(Seq("sku" -> "s2", "qty" -> null), Seq("sku" -> null, "qty" -> null)))
        .updated("note", Seq("value" -> null)))
    // What the decoder read of Python's record writes Python's record again.
    val decoder = new ProtoDecoder(shop, "shop.Order")
    val python = hex(shopOrderMicrosHex)
    val again = encoder(shop, "shop.Order", decoder.dataType).encode(decoder.decode(python, 0, python.length))
    assert(message(again).toSeq == python.toSeq)
  }

  test("proto2: required and explicit presence, packed only when declared, a closed enum") {
    val struct = ProtoSchemas.sqlType(legacy, "legacy.Reading")
    val reading = row(9L, null, utf8("B"), array(-1L, 1L, -64L), array(7, -1))
    val bytes = encoder(legacy, "legacy.Reading", struct).encode(reading)
    assert(message(bytes).toSeq == hex(legacyReadingHex).toSeq)
    // A proto2 zero is written: its presence is explicit.
    val zeros = encoder(legacy, "legacy.Reading", struct).encode(row(0L, 0, utf8("A"), array(), array()))
    assert(message(zeros).toSeq == (int(1, 0) ++ int(2, 0) ++ int(3, 1)).toSeq)
    assert(
      decoded(legacy, "legacy.Reading", zeros) ==
        Seq("id" -> 0L, "level" -> 0L, "kind" -> "A", "deltas" -> Nil, "raw" -> Nil))
  }

  test("every encoding's corner, byte for byte as Python's protobuf wrote it") {
    val struct = ProtoSchemas.sqlType(edge, "ex.Edge")
    val inner = (s: String, n: Seq[Long]) => row(if (s == null) null else utf8(s), array(n: _*))
    val edgeRow = row(
      -2,
      -3L,
      -4,
      array(0, 1, -1),
      array(0.0, -1.5),
      array(true, false),
      array(utf8("K0"), utf8("K1"), utf8("KM")),
      map(-7 -> utf8("x"), 0 -> utf8("")),
      map(true -> inner(null, Seq(1L)), false -> inner("", Nil)),
      utf8(""),
      null,
      0L,
      -1000001L, // -2 s and 999999000 ns: a Timestamp's nanos are never negative
      -1500000L, // -1 s and -500000000 ns: a Duration's have its sign
      utf8("é" * 100),
      inner("a" * 200, Seq(300L, -1L)), // 217 bytes: a length of two bytes, the content moved up by one
      array(-1, 1, Int.MinValue),
      -1L,
      -0.0f
    )
    val bytes = encoder(edge, "ex.Edge", struct).encode(edgeRow)
    assert(message(bytes).toSeq == hex(edgeHex).toSeq)
    val back = decoded(edge, "ex.Edge", bytes).asInstanceOf[Seq[(String, Any)]].toMap
    assert(back("names") == (("map", Map(-7L -> "x", 0L -> ""), 2)))
    assert(back("before") == -1000001L && back("back") == -1500000L)
    assert(back("big") == Seq("s" -> ("a" * 200), "n" -> Seq(300L, -1L)))
    // An empty message set is written, empty, as its presence says.
    val empty = encoder(edge, "ex.Edge", StructType.fromDDL("inner struct<s: string>")).encode(row(row(null)))
    assert(message(empty).toSeq == hex("5a00").toSeq)
  }

  test("fields in the order of their numbers, whatever the columns' order; columns left out are not written") {
    val struct = StructType.fromDDL("maybe int, tags array<string>, id bigint")
    val bytes = encoder(shop, "shop.Order", struct).encode(row(5, array(utf8("t")), 1L))
    assert(message(bytes).toSeq == (int(1, 1) ++ str(12, "t") ++ tag(21, 0) ++ varint(5)).toSeq)
    // proto3 fields without presence: a null and a zero write nothing; null arrays and maps nothing either
    val none = encoder(shop, "shop.Order", orderType).encode(
      row(
        0L,
        utf8(""),
        0,
        0,
        0L,
        0.0,
        0.0f,
        false,
        Array.emptyByteArray,
        utf8("NEW"),
        null,
        array(),
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null))
    assert(message(none).isEmpty)
  }

  test("the registry's message index of the message written; a nested message may be written alone") {
    // Messages by full name: shop.Order 0, shop.Order.Line 1, shop.Order.StockEntry 2, shop.Other 3.
    val other = encoder(shop, "shop.Other", StructType.fromDDL("x string")).encode(row(utf8("y")))
    assert(other.toSeq == (Array[Byte](3) ++ str(1, "y")).toSeq)
    val reader = new ProtoPayloadReader(shopText, "shop.Other")
    val id = java.util.UUID.randomUUID()
    assert(
      comparable(reader.read(id, 1, shopText, other, 0, other.length), StructType.fromDDL("x string")) ==
        Seq("x" -> "y"))
    val line = encoder(shop, "shop.Order.Line", StructType.fromDDL("qty int")).encode(row(2))
    assert(line.toSeq == (Array[Byte](1) ++ int(2, 2)).toSeq)
    val notOwn = intercept[ProtoSchemaException](encoder(shop, "google.protobuf.Timestamp", new StructType()))
    assert(notOwn.getMessage.contains("declares no message google.protobuf.Timestamp (its messages: shop.Order, "))
  }

  test("narrower columns are written as the wider field: byte, short and int as int64; float as double") {
    val file = ProtoParser.parse("""syntax = "proto3"; import "google/protobuf/duration.proto";
        |message W { int64 a = 1; sint64 b = 2; fixed64 c = 3; double d = 4; uint32 e = 5; sfixed32 f = 6;
        |google.protobuf.Duration g = 7; repeated int64 h = 8; map<int64, double> i = 9; }""".stripMargin)
    val narrow = StructType.fromDDL(
      "a tinyint, b smallint, c int, d float, e int, f smallint, g interval hour to second, h array<int>, " +
        "i map<int, float>")
    val wide = StructType.fromDDL(
      "a bigint, b bigint, c bigint, d double, e int, f int, g interval day to second, h array<bigint>, " +
        "i map<bigint, double>")
    val n = encoder(file, "W", narrow).encode(
      row(-1.toByte, -2.toShort, -3, 1.5f, -1, -5.toShort, 3600000000L, array(1, -1), map(-1 -> 0.5f)))
    val w =
      encoder(file, "W", wide).encode(row(-1L, -2L, -3L, 1.5, -1, -5, 3600000000L, array(1L, -1L), map(-1L -> 0.5)))
    assert(n.toSeq == w.toSeq)
    assert(message(w).take(13).toSeq == (int(1, -1) ++ int(2, zigzag(-2))).toSeq)
  }

  test("a struct that does not fit the message is refused when the encoder is built, naming the column") {
    val cases = Seq(
      "id bigint, Item string" -> ("column Item: the Protobuf message shop.Order has no field of that name " +
        "(Protobuf names are case-sensitive: it has item). Drop or rename the column"),
      "id bigint, id bigint" -> "column id: the struct has two columns of that name",
      "id string" -> "column id: Spark type string cannot be written as Protobuf int64. Cast it to bigint.",
      "delta bigint" -> "column delta: Spark type bigint cannot be written as Protobuf sint32. Cast it to int.",
      "ratio double" -> "column ratio: Spark type double cannot be written as Protobuf float. Cast it to float.",
      "status int" -> ("column status: Spark type int cannot be written as Protobuf enum shop.Order.Status. Cast it " +
        "to string (the value's name)."),
      "at struct<seconds: bigint, nanos: int>" -> ("column at: Spark type struct<seconds:bigint,nanos:int> cannot " +
        "be written as Protobuf message google.protobuf.Timestamp. Cast it to timestamp."),
      "took interval year to month" -> ("column took: Spark type interval year to month cannot be written as " +
        "Protobuf message google.protobuf.Duration. Cast it to interval day to second."),
      "tags string" -> ("column tags: Spark type string cannot be written as Protobuf repeated string. Cast it to " +
        "array<string>."),
      "id array<bigint>" -> "column id: Spark type array<bigint> cannot be written as Protobuf int64",
      "line struct<sku: string, qty: bigint>" -> ("column line.qty: Spark type bigint cannot be written as " +
        "Protobuf int32. Cast it to int."),
      "lines array<struct<sku: string, price: double>>" -> ("column lines[].price: the Protobuf message " +
        "shop.Order.Line has no field of that name"),
      "stock map<string, string>" -> "column stock{}: Spark type string cannot be written as Protobuf int64",
      "stock map<int, bigint>" -> ("column stock: the map's keys are int, and the Protobuf map's keys are string. " +
        "Cast the keys to string (transform_keys)."),
      "stock array<bigint>" -> ("column stock: Spark type array<bigint> cannot be written as Protobuf " +
        "map<string, int64>. Cast it to map<string, bigint>."),
      "tags array<void>" -> ("column tags[]: void values are nothing but null, which Protobuf's repeated fields " +
        "and maps do not hold. Cast them to string."),
      "line struct<sku: string>, note string" -> ("column note: Spark type string cannot be written as Protobuf " +
        "message google.protobuf.StringValue. Cast it to a struct of google.protobuf.StringValue's fields."),
      "card string not null, cash int not null" -> ("column card: it and cash are members of oneof pay of " +
        "shop.Order, which holds one of them at a time, and card and cash are not nullable")
    )
    cases.foreach { case (ddl, expected) =>
      val problem = refusal(shop, "shop.Order", ddl)
      assert(problem.startsWith(expected), s"$ddl: $problem")
    }
    assert(
      refusal(legacy, "legacy.Reading", "level int").startsWith(
        "column id: the struct has no such column, and the Protobuf field is required. Add the column (of type " +
          "bigint)."))
    assert(
      refusal(legacy, "legacy.Reading", "id void").startsWith(
        "column id: a void column holds nothing but null, and the Protobuf field is required."))
    // A void column of a field that is not required is never written: a null there is no value.
    val void = encoder(shop, "shop.Order", StructType.fromDDL("id bigint, item void")).encode(row(1L, null))
    assert(message(void).toSeq == int(1, 1).toSeq)
  }

  test("an open enum's number without a name, as the decoder reads it, is written back; a closed enum's is not") {
    val open = ProtoParser.parse("syntax = \"proto3\"; message M { E e = 1; enum E { Z = 0; ONE = 1; } }")
    val struct = StructType.fromDDL("e string")
    Seq(9, -3, Int.MaxValue).foreach { n =>
      val record = int(1, n.toLong)
      val read = new ProtoDecoder(open, "M").decode(record, 0, record.length)
      assert(read.getUTF8String(0).toString == s"UNKNOWN_ENUM_VALUE_E_$n")
      assert(message(encoder(open, "M", struct).encode(read)).toSeq == record.toSeq)
    }
    val closed = ProtoParser.parse("syntax = \"proto2\"; message M { optional E e = 1; enum E { Z = 0; ONE = 1; } }")
    Seq("UNKNOWN_ENUM_VALUE_E_9", "UNKNOWN_ENUM_VALUE_Other_9", "UNKNOWN_ENUM_VALUE_E_x").foreach { name =>
      val file = if (name == "UNKNOWN_ENUM_VALUE_E_9") closed else open
      val refused = intercept[ProtoEncodeException](encoder(file, "M", struct).encode(row(utf8(name)))).getMessage
      assert(refused.startsWith("column e: a string that names no value of enum M.E"), refused)
    }
  }

  test("a row the message cannot hold fails alone, naming the column, never the data; the encoder goes on") {
    val file =
      ProtoParser.parse("""syntax = "proto3"; message M { string s = 1; repeated int64 r = 2; map<string, M2> m = 3;
        |E e = 4; oneof o { string a = 5; int32 b = 6; } message M2 { int32 x = 1; } enum E { Z = 0; ONE = 1; } }
        |""".stripMargin)
    val struct =
      StructType.fromDDL("s string, r array<bigint>, m map<string, struct<x: int>>, e string, a string, b int")
    val encode = encoder(file, "M", struct)
    def failure(values: Any*): String = intercept[ProtoEncodeException](encode.encode(row(values: _*))).getMessage
    val secret = utf8("secret-value")
    val cases = Seq(
      failure(secret, array(1L, null), null, null, null, null) -> ("column r[]: a null element, and Protobuf's " +
        "repeated fields hold no null. Remove the nulls (array_compact), replace them, or drop those rows."),
      failure(secret, null, map(secret -> null), null, null, null) -> ("column m{}: a null value, and " +
        "Protobuf's maps hold no null."),
      failure(null, null, null, secret, null, null) -> ("column e: a string that names no value of enum M.E (its " +
        "values: Z, ONE). Map the strings to those names, or drop those rows."),
      failure(null, null, null, null, secret, 0) -> ("columns a and b: 2 of them set in one row, and they are " +
        "members of oneof o of M, which holds one at a time."),
      failure(
        UTF8String.fromBytes(Array(0xc3.toByte)),
        null,
        null,
        null,
        null,
        null) -> "column s: a string that is not valid UTF-8, which proto3 strings must be"
    )
    cases.foreach { case (problem, expected) =>
      assert(problem.startsWith(expected), problem)
      assert(!problem.contains("secret"))
    }
    assert(
      message(encode.encode(row(utf8("ok"), null, null, utf8("ONE"), null, 7))).toSeq ==
        (str(1, "ok") ++ int(4, 1) ++ int(6, 7)).toSeq)
    val required = intercept[ProtoEncodeException](
      encoder(legacy, "legacy.Reading", StructType.fromDDL("id bigint")).encode(row(null))).getMessage
    assert(required.startsWith("column id: null, and the Protobuf field is required. Replace the nulls (coalesce)"))
    // A proto2 string is written as Spark holds it, as protobuf-java does not check a proto2 string.
    val proto2 = encoder(ProtoParser.parse("message P { optional string s = 1; }"), "P", StructType.fromDDL("s string"))
    assert(
      message(proto2.encode(row(UTF8String.fromBytes(Array[Byte](-1))))).toSeq ==
        (tag(1, 2) ++ Array[Byte](1, -1)).toSeq)
  }

  test("large records: lengths of several bytes at every level, the buffer grown and reused") {
    val struct = StructType.fromDDL("lines array<struct<sku: string, qty: int>>, counts array<int>, item string")
    val encode = encoder(shop, "shop.Order", struct)
    val sku = "s" * 20000
    val big = row(array(row(utf8(sku), 1), row(utf8("x"), 2)), array((1 to 100000): _*), utf8("é" * 300000))
    val bytes = encode.encode(big)
    val back = decoded(shop, "shop.Order", bytes).asInstanceOf[Seq[(String, Any)]].toMap
    assert(back("lines") == Seq(Seq("sku" -> sku, "qty" -> 1L), Seq("sku" -> "x", "qty" -> 2L)))
    assert(back("counts") == (1 to 100000).map(_.toLong))
    assert(back("item") == "é" * 300000)
    val small = encode.encode(row(null, null, utf8("a")))
    assert(message(small).toSeq == str(2, "a").toSeq)
    val rows: Seq[InternalRow] = Seq(big, row(null, array(1), null))
    assert(rows.map(encode.encode).map(_.length).last == 4)
  }
}
