// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.json

import java.io.StringWriter
import java.nio.charset.StandardCharsets.UTF_8
import java.time.{Instant, LocalDate}

import io.github.sparkkinesis.glue.avro.CatalystValues.comparable
import io.github.sparkkinesis.testing.SeededProperties
import org.apache.spark.sql.types._
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * Records of JSON text read as Spark values: each type, a schema's evolution (properties added and
 * removed), records that are no JSON of the schema with the message a user sees, and random rows written
 * by Jackson that read back equal.
 */
class JsonDecoderSuite extends AnyFunSuite with SeededProperties {

  private def decode(schema: String, json: String): Any = {
    val dataType = JsonSchemas.sqlType(schema)
    val bytes = json.getBytes(UTF_8)
    // An offset into a larger array, as a framed record's payload is.
    val framed = Array.fill[Byte](18)(3) ++ bytes ++ Array[Byte](0x7f)
    comparable(new JsonDecoder(dataType).decode(framed, 18, bytes.length), dataType)
  }

  private def failure(schema: String, json: String): String =
    intercept[JsonDecodeException](decode(schema, json)).getMessage

  private val order =
    """{"type": "object", "required": ["id"], "properties": {
      | "id": {"type": "integer"}, "item": {"type": "string"}, "price": {"type": "number"},
      | "paid": {"type": "boolean"}, "day": {"type": "string", "format": "date"},
      | "at": {"type": "string", "format": "date-time"},
      | "lines": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"},
      |   "qty": {"type": "integer"}}}},
      | "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
      | "attributes": {"type": "object"}}}""".stripMargin

  /** JSON's escapes of é and 😀 (a surrogate pair), spelled without Scala's unicode escapes. */
  private val escaped = "\\u00e9 \\ud83d\\ude00"

  test("values of each type: longs, doubles, strings, booleans, dates, timestamps, arrays, maps, structs") {
    val json =
      """{"id": 9223372036854775807, "item": "caf""" + escaped + """", "price": -2.5e-3, "paid": true,
        | "day": "2026-11-28", "at": "2026-11-28T01:02:03.456789+01:00",
        | "lines": [{"sku": "a", "qty": 2}, {"qty": 3.0}], "counts": {"x": 1, "y": -2},
        | "attributes": {"s": "text", "n": 1.5, "o": {"k": [1, null]}, "z": null}}""".stripMargin
    assert(
      decode(order, json) == Seq(
        "id" -> Long.MaxValue,
        "item" -> "café \ud83d\ude00",
        "price" -> ("double", java.lang.Double.doubleToLongBits(-0.0025)),
        "paid" -> true,
        "day" -> LocalDate.of(2026, 11, 28).toEpochDay,
        "at" -> (Instant.parse("2026-11-28T00:02:03.456789Z").getEpochSecond * 1000000L + 456789L),
        "lines" -> Seq(Seq("sku" -> "a", "qty" -> 2L), Seq("sku" -> null, "qty" -> 3L)),
        "counts" -> ("map", Map("x" -> 1L, "y" -> -2L), 2),
        "attributes" -> ("map", Map("s" -> "text", "n" -> "1.5", "o" -> """{"k":[1,null]}""", "z" -> null), 4)
      ))
  }

  test("evolution: a newer writer's properties are skipped, an older one's missing properties are null") {
    val newer = """{"id": 1, "coupon": {"code": "X", "tiers": [[1], {"a": []}]}, "item": "pear", "extra": null}"""
    assert(
      decode(order, newer)
        .asInstanceOf[Seq[(String, Any)]]
        .take(3) == Seq("id" -> 1L, "item" -> "pear", "price" -> null))
    assert(decode(order, """{"id": 2}""").asInstanceOf[Seq[(String, Any)]].map(_._2).count(_ == null) == 8)
  }

  test("a value of another JSON type, or a required one missing or null, names the field and what was found") {
    assert(
      failure(order, """{"id": 1, "lines": [{"qty": "2"}]}""") ==
        "A record of 34 bytes is no value of the reader schema: the field lines[].qty is a string, where an " +
        "integer is expected.")
    assert(failure(order, """{"id": "1"}""").contains("the field id is a string, where an integer is expected"))
    assert(failure(order, """{"item": "x"}""").contains("the field id is missing, which the schema requires"))
    assert(failure(order, """{"id": null}""").contains("the field id is null, which the schema does not allow"))
    assert(failure(order, """[1]""").contains("the value is an array, where an object is expected"))
    assert(failure(order, """{"id": 1, "paid": 1}""").contains("the field paid is an integer, where a boolean"))
    assert(failure(order, """{"id": 1, "counts": {"a": 1.5}}""").contains("counts{} is a number that is no integer"))
    assert(failure(order, """{"id": 1, "day": "28/11/2026"}""").contains("day is a string that is not a date"))
    assert(failure(order, """{"id": 1, "at": "2026-11-28T01:02:03"}""").contains("at is a string that is not a date"))
    assert(failure(order, """{"id": 1, "price": 1e400}""").contains("price is a number out of the range of a double"))
    assert(
      failure(order, """{"id": 9223372036854775808}""").contains(
        "the field id is an integer out of the range of a long"))
  }

  test("timestamps at either end of Spark's range read exactly; a microsecond beyond is refused") {
    def at(text: String) = decode(order, s"""{"id": 1, "at": "$text"}""").asInstanceOf[Seq[(String, Any)]].toMap
    assert(at("-290308-12-21T19:59:05.224192Z")("at") == Long.MinValue)
    assert(at("+294247-01-10T04:00:54.775807Z")("at") == Long.MaxValue)
    Seq("-290308-12-21T19:59:05.224191Z", "+294247-01-10T04:00:54.775808Z").foreach { beyond =>
      assert(failure(order, s"""{"id": 1, "at": "$beyond"}""").contains("at is a string that is not a date-time"))
    }
  }

  test("malformed, truncated, empty or trailing text, and deep nesting, fail without the record's data") {
    assert(
      failure(order, """{"id": 1, "item": "secret""") == "A record of 25 bytes ends within its JSON value (truncated).")
    val malformed = failure(order, """{"id": 1, item: 2}""")
    assert(malformed.startsWith("A record of 18 bytes is no valid JSON at line 1, column "))
    assert(malformed.endsWith("The record is truncated or corrupt, or not JSON."))
    assert(failure(order, "   ") == "A record of 3 bytes has no JSON value.")
    assert(
      failure(order, """{"id": 1} {"id": 2}""") ==
        "A record of 19 bytes has an object after its JSON value: write one value per record.")
    assert(failure(order, """{"id": 1} x""").contains("is no valid JSON"))
    val deep = """{"id": 1, "extra": """ + "[" * 5000 + "]" * 5000 + "}"
    assert(failure(order, deep).contains("nesting depth"))
    val deepMap = """{"id": 1, "attributes": {"a": """ + "[" * 5000 + "]" * 5000 + "}}"
    assert(failure(order, deepMap).contains("nesting depth"))
    val invalidUtf8 = Array[Byte]('"'.toByte, 0xc3.toByte, 0x28, '"'.toByte)
    intercept[JsonDecodeException](new JsonDecoder(StringType).decode(invalidUtf8, 0, invalidUtf8.length))
  }

  // ---- random rows written by Jackson ----

  private def typeOf(depth: Int): Gen[DataType] = {
    val atomic = Gen.oneOf[DataType](LongType, DoubleType, StringType, BooleanType, DateType, TimestampType)
    if (depth <= 0) atomic
    else
      Gen.frequency(
        3 -> atomic,
        1 -> typeOf(depth - 1).map(ArrayType(_, containsNull = true)),
        1 -> typeOf(depth - 1).map(MapType(StringType, _, valueContainsNull = true)),
        1 -> structOf(depth - 1)
      )
  }

  private def structOf(depth: Int): Gen[StructType] =
    Gen.choose(0, 4).flatMap(n => Gen.listOfN(n, typeOf(depth))).map { types =>
      StructType(types.zipWithIndex.map { case (t, i) => StructField(s"f$i", t) })
    }

  private val strings = Gen.oneOf(Gen.alphaNumStr, Gen.const("a \"quote\"\\ \n\t caf\u00e9 \ud83d\ude00 \u0001"))

  /** A value of `dataType` in the form `comparable` gives, null where allowed. */
  private def valueOf(dataType: DataType): Gen[Any] = Gen.frequency(
    1 -> Gen.const(null),
    6 -> (dataType match {
      case LongType => Gen.choose(Long.MinValue, Long.MaxValue)
      case DoubleType => Gen.choose(-1e300, 1e300).map(d => ("double", java.lang.Double.doubleToLongBits(d)))
      case StringType => strings
      case BooleanType => Gen.oneOf(true, false)
      case DateType => Gen.choose(-719162L, 2932896L)
      case TimestampType => Gen.choose(-62135596800000000L, 253402300799999999L)
      case ArrayType(e, _) => Gen.listOf(valueOf(e)).map(_.toIndexedSeq)
      case MapType(_, v, _) => Gen.mapOf(Gen.zip(strings, valueOf(v))).map(m => ("map", m, m.size))
      case s: StructType =>
        Gen.sequence[Seq[Any], Any](s.fields.map(f => valueOf(f.dataType))).map(s.fieldNames.toSeq.zip(_))
    })
  )

  private def write(out: com.fasterxml.jackson.core.JsonGenerator, dataType: DataType, value: Any): Unit =
    (dataType, value) match {
      case (_, null) => out.writeNull()
      case (LongType, l: Long) => out.writeNumber(l)
      case (DoubleType, (_, bits: Long)) => out.writeNumber(java.lang.Double.longBitsToDouble(bits))
      case (StringType, s: String) => out.writeString(s)
      case (BooleanType, b: Boolean) => out.writeBoolean(b)
      case (DateType, d: Long) => out.writeString(LocalDate.ofEpochDay(d).toString)
      case (TimestampType, us: Long) =>
        out.writeString(Instant.ofEpochSecond(Math.floorDiv(us, 1000000L), Math.floorMod(us, 1000000L) * 1000).toString)
      case (ArrayType(e, _), values: Seq[_]) =>
        out.writeStartArray()
        values.foreach(write(out, e, _))
        out.writeEndArray()
      case (MapType(_, v, _), (_, entries: Map[_, _], _)) =>
        out.writeStartObject()
        entries.foreach { case (k, x) => out.writeFieldName(k.toString); write(out, v, x) }
        out.writeEndObject()
      case (s: StructType, fields: Seq[_]) =>
        out.writeStartObject()
        out.writeFieldName("unknown") // a newer writer's property, before the reader's
        out.writeStartObject()
        out.writeEndObject()
        s.fields.zip(fields).foreach { case (f, named) =>
          val x = named.asInstanceOf[(String, Any)]._2
          if (x != null) { out.writeFieldName(f.name); write(out, f.dataType, x) } // missing is null
        }
        out.writeEndObject()
      case other => fail(s"no JSON for $other")
    }

  test("random rows of a struct written as JSON by Jackson decode back equal") {
    val rows = for {
      struct <- structOf(3)
      row <- valueOf(struct).suchThat(_ != null)
    } yield (struct, row)
    forAll(rows) { case (struct, row) =>
      val text = new StringWriter()
      val out = JsonDecoder.Factory.createGenerator(text)
      write(out, struct, row)
      out.close()
      val bytes = text.toString.getBytes(UTF_8)
      assert(comparable(new JsonDecoder(struct).decode(bytes, 0, bytes.length), struct) == row)
    }
  }
}
