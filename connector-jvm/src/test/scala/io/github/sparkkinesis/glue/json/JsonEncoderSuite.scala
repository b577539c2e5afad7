// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.json

import java.nio.charset.StandardCharsets.UTF_8
import java.time.{Instant, LocalDate}
import java.util.Base64

import com.fasterxml.jackson.databind.{DeserializationFeature, JsonNode, ObjectMapper}
import io.github.sparkkinesis.glue.avro.CatalystValues._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/**
 * Rows written with a registered JSON Schema: the text a JSON consumer reads, which structs fit the schema
 * (checked once, with a message naming the column), what each Spark type is written as and read back as
 * by JsonDecoder, and the values that fail a record when they arrive.
 */
class JsonEncoderSuite extends AnyFunSuite {

  private def struct(fields: StructField*): StructType = StructType(fields)

  private def text(schema: String, columns: StructType, row: InternalRow): String =
    new String(new JsonEncoder(schema, columns).encode(row), UTF_8)

  /** What JsonDecoder reads from the encoder's bytes, with the schema's sqlType. */
  private def decoded(schema: String, columns: StructType, row: InternalRow): Any = {
    val bytes = new JsonEncoder(schema, columns).encode(row)
    val sqlType = JsonSchemas.sqlType(schema)
    comparable(new JsonDecoder(sqlType).decode(bytes, 0, bytes.length), sqlType)
  }

  private def mismatch(schema: String, columns: StructType): String =
    intercept[JsonSchemaException](new JsonEncoder(schema, columns)).getMessage

  private val mapper = new ObjectMapper()
    .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)

  private def tree(json: String): JsonNode = mapper.readTree(json)

  private val order =
    """{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["id", "items"],
      | "properties": {
      |   "id": {"type": "integer"}, "note": {"type": ["string", "null"]},
      |   "items": {"type": "array", "items": {"type": "object", "required": ["sku"], "properties": {
      |     "sku": {"type": "string"}, "price": {"type": "number"}}}},
      |   "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
      |   "extra": {}}}""".stripMargin

  private val itemType = struct(StructField("sku", StringType), StructField("price", DoubleType))

  private val orderColumns = struct(
    StructField("id", LongType, nullable = false),
    StructField("note", StringType),
    StructField("items", ArrayType(itemType)),
    StructField("counts", MapType(StringType, IntegerType)),
    StructField("extra", struct(StructField("a", IntegerType), StructField("b", ArrayType(StringType))))
  )

  private val orderRow = row(
    7L,
    utf8("caf\u00e9 \"q\"\n"),
    array(row(utf8("k1"), 2.5), row(utf8("k2"), null)),
    map(utf8("a") -> 1, utf8("b") -> -2),
    row(1, array(utf8("x"), null)))

  test("the text is one JSON object, properties in the columns' order, as Jackson's ObjectMapper reads it") {
    val json = text(order, orderColumns, orderRow)
    assert(
      json == """{"id":7,"note":"café \"q\"\n","items":[{"sku":"k1","price":2.5},{"sku":"k2","price":null}],""" +
        """"counts":{"a":1,"b":-2},"extra":{"a":1,"b":["x",null]}}""")
    val read = tree(json)
    assert(read.get("note").asText == "caf\u00e9 \"q\"\n")
    assert(read.get("items").get(0).get("price").decimalValue == new java.math.BigDecimal("2.5"))
    assert(read.get("extra").get("b").get(1).isNull)
    // In a different order, the columns are written in theirs.
    val reordered = struct(orderColumns.fields.reverse.toIndexedSeq: _*)
    val values = (0 until 5).map(i => orderRow.get(i, orderColumns(i).dataType)).reverse
    assert(tree(text(order, reordered, row(values: _*))) == read)
    assert(text(order, reordered, row(values: _*)).startsWith("""{"extra":{"a":1"""))
  }

  test("what the encoder writes, the decoder reads back; a value of any JSON type as its JSON text") {
    assert(
      decoded(order, orderColumns, orderRow) == Seq(
        "id" -> 7L,
        "note" -> "caf\u00e9 \"q\"\n",
        "items" -> Seq(
          Seq("sku" -> "k1", "price" -> ("double", java.lang.Double.doubleToLongBits(2.5))),
          Seq("sku" -> "k2", "price" -> null)),
        "counts" -> ("map", Map("a" -> 1L, "b" -> -2L), 2),
        "extra" -> """{"a":1,"b":["x",null]}"""
      ))
  }

  test("narrower columns widen: integral types to integer; float, int and decimal to number") {
    val schema =
      """{"type": "object", "properties": {"b": {"type": "integer"}, "s": {"type": "integer"},
        | "i": {"type": "integer"}, "f": {"type": "number"}, "n": {"type": "number"},
        | "d": {"type": "number"}}}""".stripMargin
    val columns = struct(
      StructField("b", ByteType),
      StructField("s", ShortType),
      StructField("i", IntegerType),
      StructField("f", FloatType),
      StructField("n", IntegerType),
      StructField("d", DecimalType(5, 2))
    )
    val values = row(-3.toByte, 300.toShort, Int.MinValue, 1.1f, 4, Decimal("-123.45"))
    assert(text(schema, columns, values) == """{"b":-3,"s":300,"i":-2147483648,"f":1.1,"n":4,"d":-123.45}""")
    val read = decoded(schema, columns, values).asInstanceOf[Seq[(String, Any)]].toMap
    assert(read("b") == -3L && read("s") == 300L && read("i") == Int.MinValue.toLong)
    val double = (name: String) => java.lang.Double.longBitsToDouble(read(name).asInstanceOf[(String, Long)]._2)
    assert(double("f").toFloat == 1.1f, "a float reads back as the same float")
    assert(double("n") == 4.0 && double("d") == -123.45)
  }

  test("dates, timestamps and binary are strings: ISO-8601 days and date-times, base64") {
    val schema =
      """{"type": "object", "properties": {"day": {"type": "string", "format": "date"},
        | "at": {"type": "string", "format": "date-time"}, "dayText": {"type": "string"},
        | "atText": {"type": "string"}, "local": {"type": "string"}, "bytes": {"type": "string"}}}""".stripMargin
    val columns = struct(
      StructField("day", DateType),
      StructField("at", TimestampType),
      StructField("dayText", DateType),
      StructField("atText", TimestampType),
      StructField("local", TimestampNTZType),
      StructField("bytes", BinaryType)
    )
    val day = LocalDate.of(2026, 11, 28).toEpochDay.toInt
    val at = Instant.parse("2026-11-28T01:02:03.000456Z")
    val micros = at.getEpochSecond * 1000000L + at.getNano / 1000
    val bytes = Array[Byte](0, -1, 62, 63, 64)
    val values = row(day, micros, day, micros, micros, bytes)
    assert(
      text(schema, columns, values) ==
        """{"day":"2026-11-28","at":"2026-11-28T01:02:03.000456Z","dayText":"2026-11-28",""" +
        """"atText":"2026-11-28T01:02:03.000456Z","local":"2026-11-28T01:02:03.000456",""" +
        s""""bytes":"${Base64.getEncoder.encodeToString(bytes)}"}""")
    assert(
      decoded(schema, columns, values) == Seq(
        "day" -> day.toLong,
        "at" -> micros,
        "dayText" -> "2026-11-28",
        "atText" -> "2026-11-28T01:02:03.000456Z",
        "local" -> "2026-11-28T01:02:03.000456",
        "bytes" -> Base64.getEncoder.encodeToString(bytes)
      ))
  }

  test("timestamps: whole seconds without a fraction, microseconds as six digits, before 1970 and after 9999") {
    val schema = """{"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}}"""
    val columns = struct(StructField("at", TimestampType))
    def written(micros: Long): String = tree(text(schema, columns, row(micros))).get("at").asText
    Seq(
      0L -> "1970-01-01T00:00:00Z",
      1L -> "1970-01-01T00:00:00.000001Z",
      -1L -> "1969-12-31T23:59:59.999999Z",
      1500000L -> "1970-01-01T00:00:01.500000Z",
      -62135596800000000L -> "0001-01-01T00:00:00Z",
      253402300800000000L -> "+10000-01-01T00:00:00Z"
    ).foreach { case (micros, expected) =>
      assert(written(micros) == expected)
      assert(decoded(schema, columns, row(micros)) == Seq("at" -> micros), expected)
    }
  }

  test("decimals are exact JSON numbers in plain notation, whatever their digits") {
    val schema = """{"type": "object", "properties": {"d": {"type": "number"}, "w": {"type": "number"}}}"""
    val columns = struct(StructField("d", DecimalType(38, 18)), StructField("w", DecimalType(38, 0)))
    Seq(
      ("12345678901234567890.123456789012345678", "99999999999999999999999999999999999999"),
      ("-0.000000000000000001", "-99999999999999999999999999999999999999"),
      ("0E-18", "1")
    ).foreach { case (d, w) =>
      val json = text(schema, columns, row(Decimal(BigDecimal(d), 38, 18), Decimal(BigDecimal(w), 38, 0)))
      assert(!json.contains("E") && !json.contains("e"), json)
      val read = tree(json)
      assert(read.get("d").decimalValue.compareTo(new java.math.BigDecimal(d)) == 0, json)
      assert(read.get("w").bigIntegerValue == new java.math.BigInteger(w), json)
    }
  }

  test("a value of any JSON type is written as its own type's JSON, not a quoted string") {
    val schema =
      """{"type": "object", "properties": {"any": {}, "either": {"type": ["string", "integer"]},
        | "attributes": {"type": "object"}, "list": {"type": "array"}}}""".stripMargin
    val columns = struct(
      StructField("any", struct(StructField("k", LongType), StructField("at", DateType))),
      StructField("either", LongType),
      StructField("attributes", MapType(StringType, ArrayType(DoubleType))),
      StructField("list", ArrayType(BinaryType))
    )
    val values = row(row(5L, 0), 12L, map(utf8("x") -> array(1.5, null)), array(Array[Byte](1), null))
    assert(
      text(schema, columns, values) ==
        """{"any":{"k":5,"at":"1970-01-01"},"either":12,"attributes":{"x":[1.5,null]},"list":["AQ==",null]}""")
    assert(
      decoded(schema, columns, values) == Seq(
        "any" -> """{"k":5,"at":"1970-01-01"}""",
        "either" -> "12",
        "attributes" -> ("map", Map("x" -> "[1.5,null]"), 1),
        "list" -> Seq("AQ==", null)))
  }

  test("a struct is written as an object without properties (a map), each column one of its values") {
    val schema =
      """{"type": "object", "properties": {"counts": {"type": "object",
        | "additionalProperties": {"type": "integer"}}}}""".stripMargin
    val columns = struct(StructField("counts", struct(StructField("a", IntegerType), StructField("b", LongType))))
    assert(text(schema, columns, row(row(1, 2L))) == """{"counts":{"a":1,"b":2}}""")
    val e = intercept[JsonEncodeException](new JsonEncoder(schema, columns).encode(row(row(1, null))))
    assert(e.getMessage.startsWith("column counts.b: null, and the JSON Schema does not allow null there."))
    val wrong = struct(StructField("counts", struct(StructField("a", StringType))))
    assert(mismatch(schema, wrong).startsWith("column counts.a: a string column cannot be written where the JSON"))
    // A schema of any object, or any value, takes a struct of any columns.
    val anything = struct(StructField("x", struct(StructField("y", TimestampType))), StructField("z", BooleanType))
    Seq("""{"type": "object"}""", "{}", "true").foreach { any =>
      assert(text(any, anything, row(row(0L), true)) == """{"x":{"y":"1970-01-01T00:00:00Z"},"z":true}""", any)
    }
  }

  test("nulls: written as null where the schema allows null; elsewhere the record fails naming the column") {
    val columns = struct(
      StructField("id", LongType),
      StructField("note", StringType),
      StructField("items", ArrayType(itemType, containsNull = true)))
    val encoder = new JsonEncoder(order, columns)
    val ok = new String(encoder.encode(row(1L, null, array(row(utf8("a"), null)))), UTF_8)
    assert(ok == """{"id":1,"note":null,"items":[{"sku":"a","price":null}]}""")
    def failure(values: InternalRow): String = intercept[JsonEncodeException](encoder.encode(values)).getMessage
    assert(
      failure(row(null, utf8("secret"), array())) ==
        "column id: null, and the JSON Schema does not allow null there. Replace the nulls (coalesce), drop " +
        "those rows, or write with a schema version where the property allows null.")
    assert(failure(row(1L, utf8("secret"), array(null))).startsWith("column items[]: null, "))
    val sku = failure(row(1L, utf8("secret"), array(row(null, 1.0))))
    assert(sku.startsWith("column items[].sku: null, ") && !sku.contains("secret"), sku)
    // The encoder is still good after a failed record, which it left halfway.
    assert(new String(encoder.encode(row(2L, null, array())), UTF_8) == """{"id":2,"note":null,"items":[]}""")
  }

  test("NaN and infinite floats and doubles fail the record naming the column: JSON has no such numbers") {
    val schema = """{"type": "object", "properties": {"d": {"type": "number"}, "any": {}}}"""
    val columns = struct(StructField("d", DoubleType), StructField("any", ArrayType(FloatType)))
    val encoder = new JsonEncoder(schema, columns)
    Seq(row(Double.NaN, null), row(Double.NegativeInfinity, null), row(1.0, array(0f, Float.PositiveInfinity)))
      .foreach { values =>
        val e = intercept[JsonEncodeException](encoder.encode(values))
        assert(
          e.getMessage.startsWith("column d: a NaN or infinite number") ||
            e.getMessage.startsWith("column any[]: a NaN or infinite number"),
          e.getMessage)
      }
    assert(new String(encoder.encode(row(-0.0, array(Float.MaxValue))), UTF_8) == """{"d":-0.0,"any":[3.4028235E38]}""")
  }

  test("a property without a column: left out if optional, null if required but nullable, else an error") {
    val schema =
      """{"type": "object", "required": ["id", "note"], "properties": {"id": {"type": "integer"},
        | "note": {"type": ["string", "null"]}, "tag": {"type": "string"}}}""".stripMargin
    assert(text(schema, struct(StructField("id", LongType)), row(1L)) == """{"id":1,"note":null}""")
    assert(
      mismatch(schema, struct(StructField("note", StringType))) ==
        "column id: the struct has no such column, and the JSON Schema requires the property and does not " +
        "allow null. Add the column (of type bigint).")
    val nested = mismatch(order, struct(StructField("id", LongType), StructField("items", ArrayType(struct()))))
    assert(nested.startsWith("column items[].sku: the struct has no such column"), nested)
  }

  test("a column the schema lacks is an error, naming a property whose name differs only in case") {
    val e = mismatch(order, struct(StructField("id", LongType), StructField("Note", StringType)))
    assert(
      e == "column Note: the JSON Schema has no property of that name (JSON names are case-sensitive: it has " +
        "note). Drop or rename the column, or write with a schema version that has the property.")
    val nested = mismatch(
      order,
      struct(StructField("id", LongType), StructField("items", ArrayType(itemType.add("qty", IntegerType)))))
    assert(nested.startsWith("column items[].qty: the JSON Schema has no property of that name."), nested)
    val twice = mismatch(order, struct(StructField("id", LongType), StructField("id", LongType)))
    assert(twice.startsWith("column id: the struct has two columns of that name"), twice)
  }

  test("a column of a type that does not fit fails naming the column and the type to cast to") {
    assert(
      mismatch(order, struct(StructField("id", StringType))) ==
        "column id: a string column cannot be written where the JSON Schema has an integer. Cast it to bigint.")
    val price = mismatch(
      order,
      struct(
        StructField("id", LongType),
        StructField("items", ArrayType(struct(StructField("sku", StringType), StructField("price", StringType))))))
    assert(price.startsWith("column items[].price: a string column cannot be written where the JSON Schema has a"))
    assert(mismatch(order, struct(StructField("id", DoubleType))).contains("column id: a double column"))
    assert(mismatch(order, struct(StructField("id", DecimalType(10, 0)))).contains("Cast it to bigint."))
    assert(mismatch(order, struct(StructField("id", LongType), StructField("note", LongType))).contains("a string."))
    val dateTime = """{"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}}"""
    assert(
      mismatch(dateTime, struct(StructField("at", TimestampNTZType))) ==
        "column at: a timestamp_ntz column cannot be written where the JSON Schema has a string of format " +
        "date-time. Cast it to timestamp.")
    assert(
      mismatch(order, struct(StructField("id", LongType), StructField("counts", MapType(IntegerType, LongType))))
        .startsWith("column counts: the map's keys are int, and JSON objects have string keys only."))
    assert(
      mismatch(order, struct(StructField("id", LongType), StructField("extra", CalendarIntervalType)))
        .startsWith("column extra: Spark type interval has no JSON equivalent."))
    assert(
      mismatch(order, struct(StructField("id", NullType)))
        .startsWith("column id: a void column holds nothing but null, and the JSON Schema does not allow null"))
  }

  test("the schema must describe an object, and have a Spark type") {
    assert(
      mismatch("""{"type": "array", "items": {"type": "integer"}}""", struct(StructField("a", LongType))) ==
        "The JSON Schema describes an array, not an object: a struct is written as a JSON object. Write with a " +
        "schema whose top level is an object.")
    assert(mismatch("""{"type": "decimal"}""", struct()).contains("has the unknown type 'decimal'"))
  }

  test("where alternatives of one Spark type differ, a value must fit the narrowest; required in any part") {
    val schema =
      """{"type": "object", "properties": {
        | "s": {"oneOf": [{"type": "string"}, {}]},
        | "o": {"allOf": [{"type": "object", "properties": {"a": {}}},
        |   {"type": "object", "required": ["a"], "properties": {"a": {"type": ["string", "null"]}}}]}}}""".stripMargin
    assert(mismatch(schema, struct(StructField("s", LongType))).startsWith("column s: a bigint column cannot"))
    assert(mismatch(schema, struct(StructField("o", struct(StructField("a", LongType))))).startsWith("column o.a:"))
    assert(text(schema, struct(StructField("o", struct())), row(row())) == """{"o":{"a":null}}""")
  }

  test("strings with any characters, and map keys, are escaped as JSON needs") {
    val schema = """{"type": "object", "properties": {"s": {"type": "string"}, "m": {"type": "object"}}}"""
    val columns = struct(StructField("s", StringType), StructField("m", MapType(StringType, StringType)))
    val hard = "\u0000\u001f \\ \" / \t \u00e9 \ud83d\ude00 \u2028"
    val json = text(schema, columns, row(utf8(hard), map(utf8(hard) -> UTF8String.fromString(hard))))
    val read = tree(json)
    assert(read.get("s").asText == hard && read.get("m").get(hard).asText == hard)
  }
}
