// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.glue.avro.CatalystValues._
import org.apache.avro.generic.{GenericData, GenericRecordBuilder}
import org.apache.avro.Schema
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

/**
 * Records that Avro's own GenericDatumWriter wrote, read as Spark values: logical types, unions, and data
 * written with another version of the schema than the reader's, resolved as Avro resolves it. Bytes that
 * are no Avro fail with a message that says what is wrong and where.
 */
class AvroDecoderSuite extends AnyFunSuite {

  /** What the decoder makes of `datum` written by Avro with `writer`, read with `reader`. */
  private def roundTrip(writer: Schema, reader: Schema, datum: Any): Any = {
    val bytes = avroWrite(writer, datum)
    comparable(
      new AvroDecoder(reader, AvroSchemas.sqlType(reader)).decode(writer, bytes, 0, bytes.length),
      AvroSchemas.sqlType(reader))
  }

  private def decodeFailure(writer: Schema, reader: Schema, bytes: Array[Byte]): String =
    intercept[AvroDecodeException] {
      new AvroDecoder(reader, AvroSchemas.sqlType(reader)).decode(writer, bytes, 0, bytes.length)
    }.getMessage

  test("logical types: days for dates, microseconds for timestamps of millis or micros, decimals") {
    val schema = record(
      "R",
      """{"name":"day","type":{"type":"int","logicalType":"date"}}""",
      """{"name":"ms","type":{"type":"long","logicalType":"timestamp-millis"}}""",
      """{"name":"us","type":{"type":"long","logicalType":"timestamp-micros"}}""",
      """{"name":"localMs","type":{"type":"long","logicalType":"local-timestamp-millis"}}""",
      """{"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}}""",
      """{"name":"big","type":{"type":"fixed","name":"Big","size":16,"logicalType":"decimal","precision":38,"scale":4}}"""
    )
    val bigUnscaled = BigInt("-12345678901234567890123456789012345678")
    def fixed16(n: BigInt): GenericData.Fixed = {
      val bytes = n.toByteArray
      val out = Array.fill[Byte](16 - bytes.length)(if (n < 0) -1 else 0) ++ bytes
      new GenericData.Fixed(schema.getField("big").schema, out)
    }
    val datum = new GenericRecordBuilder(schema)
      .set("day", 19723)
      .set("ms", -1700000000123L)
      .set("us", 1700000000123456L)
      .set("localMs", 42L)
      .set("price", ByteBuffer.wrap(BigInt(-123456).toByteArray))
      .set("big", fixed16(bigUnscaled))
      .build()
    assert(
      roundTrip(schema, schema, datum) == Seq(
        "day" -> 19723L,
        "ms" -> -1700000000123000L,
        "us" -> 1700000000123456L,
        "localMs" -> 42000L,
        "price" -> new java.math.BigDecimal("-1234.56"),
        "big" -> new java.math.BigDecimal(bigUnscaled.bigInteger, 4)
      ))
  }

  test("enums, fixed, bytes, maps, arrays and nested records") {
    val schema = record(
      "R",
      """{"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}}""",
      """{"name":"id","type":{"type":"fixed","name":"Id","size":3}}""",
      """{"name":"raw","type":"bytes"}""",
      """{"name":"tags","type":{"type":"map","values":["null","string"]}}""",
      """{"name":"points","type":{"type":"array","items":{"type":"record","name":"P","fields":[
        {"name":"x","type":"float"},{"name":"y","type":"double"}]}}}"""
    )
    val p = schema.getField("points").schema.getElementType
    val datum = new GenericRecordBuilder(schema)
      .set("color", new GenericData.EnumSymbol(schema.getField("color").schema, "GREEN"))
      .set("id", new GenericData.Fixed(schema.getField("id").schema, Array[Byte](1, 2, 3)))
      .set("raw", ByteBuffer.wrap(Array[Byte](9, 8)))
      .set("tags", Map[String, String]("a" -> "x", "b" -> null).asJava)
      .set("points", Seq(new GenericRecordBuilder(p).set("x", 1.5f).set("y", -2.25).build()).asJava)
      .build()
    assert(
      roundTrip(schema, schema, datum) == Seq(
        "color" -> "GREEN",
        "id" -> Seq[Byte](1, 2, 3),
        "raw" -> Seq[Byte](9, 8),
        "tags" -> ("map", Map("a" -> "x", "b" -> null), 2),
        "points" -> Seq(
          Seq(
            "x" -> ("float", java.lang.Float.floatToIntBits(1.5f)),
            "y" -> ("double", java.lang.Double.doubleToLongBits(-2.25))))
      ))
  }

  test("unions: nullable values, widened numbers, and a struct with the one member set") {
    val schema = record(
      "R",
      """{"name":"maybe","type":["null","string"]}""",
      """{"name":"n","type":["int","long"]}""",
      """{"name":"f","type":["null","float","double"]}""",
      """{"name":"u","type":["null","int","string"]}"""
    )
    def read(maybe: Any, n: Any, f: Any, u: Any) =
      roundTrip(
        schema,
        schema,
        new GenericRecordBuilder(schema)
          .set("maybe", maybe)
          .set("n", n)
          .set("f", f)
          .set("u", u)
          .build())
    assert(
      read(null, 7, 1.5f, "s") == Seq(
        "maybe" -> null,
        "n" -> 7L,
        "f" -> ("double", java.lang.Double.doubleToLongBits(1.5)),
        "u" -> Seq("member0" -> null, "member1" -> "s")))
    assert(
      read("x", 1L << 40, null, 5) == Seq(
        "maybe" -> "x",
        "n" -> (1L << 40),
        "f" -> null,
        "u" -> Seq("member0" -> 5L, "member1" -> null)))
    assert(read(null, 1, null, null).asInstanceOf[Seq[Any]].last == ("u" -> null))
  }

  test("a union widened to long or double reads its numbers as they are, whatever a branch's logical type") {
    val schema = record("R", """{"name":"n","type":["int",{"type":"long","logicalType":"timestamp-millis"}]}""")
    assert(AvroSchemas.sqlType(schema) == StructType(Seq(StructField("n", LongType, nullable = false))))
    assert(roundTrip(schema, schema, new GenericRecordBuilder(schema).set("n", 1234L).build()) == Seq("n" -> 1234L))
  }

  test("a top-level value that is no record decodes to its Spark value") {
    val array = parse("""{"type":"array","items":"long"}""")
    assert(roundTrip(array, array, Seq(1L, 2L).asJava) == Seq(1L, 2L))
    val string = parse(""""string"""")
    assert(roundTrip(string, string, "hello") == "hello")
  }

  // ---- schema evolution ----

  private val v1 = record("Order", """{"name":"a","type":"int"}""", """{"name":"b","type":"string"}""")
  private val v2 = record(
    "Order",
    """{"name":"a","type":"int"}""",
    """{"name":"b","type":"string"}""",
    """{"name":"c","type":"string","default":"none"}""",
    """{"name":"d","type":["null","long"],"default":null}"""
  )

  test("a reader that adds fields with defaults reads old data with the defaults") {
    val old = new GenericRecordBuilder(v1).set("a", 1).set("b", "x").build()
    assert(roundTrip(v1, v2, old) == Seq("a" -> 1L, "b" -> "x", "c" -> "none", "d" -> null))
  }

  test("a reader that drops fields skips them, wherever they are") {
    val newer = new GenericRecordBuilder(v2).set("a", 1).set("b", "x").set("c", "y").set("d", 5L).build()
    assert(roundTrip(v2, v1, newer) == Seq("a" -> 1L, "b" -> "x"))
    val reordered = record(
      "Order",
      """{"name":"b","type":"string"}""",
      """{"name":"x","type":{"type":"array","items":"string"}}""",
      """{"name":"a","type":"int"}""")
    val datum = new GenericRecordBuilder(reordered).set("b", "q").set("x", Seq("1", "2").asJava).set("a", 9).build()
    assert(roundTrip(reordered, v1, datum) == Seq("a" -> 9L, "b" -> "q"))
  }

  test("promotions: int to long and double, float to double, string to bytes") {
    val writer = record(
      "R",
      """{"name":"i","type":"int"}""",
      """{"name":"j","type":"int"}""",
      """{"name":"f","type":"float"}""",
      """{"name":"s","type":"string"}""")
    val reader = record(
      "R",
      """{"name":"i","type":"long"}""",
      """{"name":"j","type":"double"}""",
      """{"name":"f","type":"double"}""",
      """{"name":"s","type":"bytes"}""")
    assert(AvroSchemas.sqlType(reader).asInstanceOf[StructType]("i").dataType == LongType)
    val datum = new GenericRecordBuilder(writer).set("i", -3).set("j", 2).set("f", 0.5f).set("s", "hé").build()
    assert(
      roundTrip(writer, reader, datum) == Seq(
        "i" -> -3L,
        "j" -> ("double", java.lang.Double.doubleToLongBits(2.0)),
        "f" -> ("double", java.lang.Double.doubleToLongBits(0.5)),
        "s" -> "hé".getBytes("UTF-8").toSeq
      ))
  }

  test("enums: a symbol added to the writer's enum reads as the reader's default, or fails without one") {
    val writer = record("R", """{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}}""")
    val withDefault =
      record("R", """{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"],"default":"A"}}""")
    val without = record("R", """{"name":"e","type":{"type":"enum","name":"E","symbols":["B","A"]}}""")
    def datum(symbol: String) =
      new GenericRecordBuilder(writer).set("e", new GenericData.EnumSymbol(writer.getField("e").schema, symbol)).build()
    assert(roundTrip(writer, withDefault, datum("C")) == Seq("e" -> "A"))
    assert(roundTrip(writer, without, datum("A")) == Seq("e" -> "A"), "symbols are matched by name")
    val e = decodeFailure(writer, without, avroWrite(writer, datum("C")))
    assert(
      e.contains("cannot be read with the reader schema R") && e.contains("Avro field e") && e.contains(
        "No match for C"),
      e)
    // A reader whose enum has more symbols reads data of the older one.
    assert(
      roundTrip(
        without,
        writer,
        new GenericRecordBuilder(without)
          .set("e", new GenericData.EnumSymbol(without.getField("e").schema, "B"))
          .build()) == Seq("e" -> "B"))
  }

  test("unions: a plain writer field read as a nullable one, and a writer's null read without a null") {
    val plain = record("R", """{"name":"s","type":"string"}""")
    val nullable = record("R", """{"name":"s","type":["null","string"],"default":null}""")
    assert(roundTrip(plain, nullable, new GenericRecordBuilder(plain).set("s", "v").build()) == Seq("s" -> "v"))
    assert(roundTrip(nullable, plain, new GenericRecordBuilder(nullable).set("s", "v").build()) == Seq("s" -> "v"))
    val e =
      decodeFailure(nullable, plain, avroWrite(nullable, new GenericRecordBuilder(nullable).set("s", null).build()))
    assert(e.contains("cannot be read with the reader schema"), e)
  }

  test("one decoder reads data of many writer schemas, more than it keeps, each as the reader's") {
    val reader = v2
    val decoder = new AvroDecoder(reader, AvroSchemas.sqlType(reader))
    val writers = (0 until AvroDecoder.WriterSchemas + 4).map { i =>
      record(
        "Order",
        """{"name":"a","type":"int"}""",
        """{"name":"b","type":"string"}""",
        s"""{"name":"x$i","type":"int"}""")
    }
    (1 to 2).foreach { _ =>
      writers.zipWithIndex.foreach { case (w, i) =>
        val bytes = avroWrite(w, new GenericRecordBuilder(w).set("a", i).set("b", s"$i").set(s"x$i", 0).build())
        assert(
          comparable(decoder.decode(w, bytes, 0, bytes.length), AvroSchemas.sqlType(reader)) ==
            Seq("a" -> i.toLong, "b" -> s"$i", "c" -> "none", "d" -> null))
      }
    }
  }

  // ---- bytes that are no Avro ----

  test("a record cut short says so, and names the field it was reading") {
    val schema = record(
      "Order",
      """{"name":"id","type":"long"}""",
      """{"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[
        {"name":"sku","type":"string"},{"name":"price","type":"double"}]}}}"""
    )
    val item = schema.getField("items").schema.getElementType
    val bytes = avroWrite(
      schema,
      new GenericRecordBuilder(schema)
        .set("id", 1L)
        .set("items", Seq(new GenericRecordBuilder(item).set("sku", "k").set("price", 2.0).build()).asJava)
        .build()
    )
    val e = decodeFailure(schema, schema, bytes.take(bytes.length - 3))
    assert(e.contains(s"A record of ${bytes.length - 3} bytes written with the schema Order is no valid Avro"), e)
    assert(e.contains("Avro field items[].price") && e.contains("the record ends inside a double"), e)
    assert(e.contains("truncated or corrupt"), e)
  }

  test("a length or count larger than the record fails before anything that large is allocated") {
    val strings = record("R", """{"name":"s","type":"string"}""")
    // A string of 2^31 - 1 bytes, claimed by a record of 5.
    val e = decodeFailure(strings, strings, Array(0xfe, 0xff, 0xff, 0xff, 0x0f).map(_.toByte))
    assert(e.contains("the record ends inside a string: 2147483647 bytes needed, 0 left"), e)
    val nulls = record("R", """{"name":"n","type":{"type":"array","items":"null"}}""")
    // A billion nulls take no bytes: claimed by a record of 5, too many.
    val count = 1000000000L << 1
    val varint = Iterator.iterate(count)(_ >>> 7).takeWhile(_ != 0).map(_ & 0x7f).toArray
    val bytes = varint.init.map(b => (b | 0x80).toByte) :+ varint.last.toByte
    val many = decodeFailure(nulls, nulls, bytes :+ 0.toByte)
    assert(many.contains("claims 1000000000 items"), many)
  }

  test("a union branch or enum symbol that does not exist, and a bad boolean, are corrupt data") {
    val union = record("R", """{"name":"u","type":["null","int"]}""")
    assert(decodeFailure(union, union, Array[Byte](4, 2)).contains("a union branch has the index 2, and there are 2"))
    val enums = record("R", """{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]}}""")
    assert(decodeFailure(enums, enums, Array[Byte](2)).contains("an enum symbol has the index 1"))
    val flag = record("R", """{"name":"b","type":"boolean"}""")
    assert(decodeFailure(flag, flag, Array[Byte](7)).contains("a boolean is the byte 7"))
  }

  test("a decoder is given the Spark type of its reader schema, or one that allows more nulls") {
    val schema = record("R", """{"name":"a","type":"int"}""")
    new AvroDecoder(schema, StructType(Seq(StructField("a", IntegerType, nullable = true))))
    val e = intercept[AvroConversionException](new AvroDecoder(schema, StructType(Seq(StructField("a", LongType)))))
    assert(e.getMessage.contains("struct<a:int>"), e.getMessage)
  }
}
