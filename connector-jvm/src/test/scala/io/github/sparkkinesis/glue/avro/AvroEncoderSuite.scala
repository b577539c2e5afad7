// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.glue.avro.CatalystValues._
import org.apache.avro.generic.{GenericData, GenericRecord, GenericRecordBuilder}
import org.apache.avro.Schema
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

/**
 * Rows written with a registered schema: which structs fit it (checked once, with a message naming the
 * column), what is written for each Spark type, and the values that fail a record when they arrive.
 */
class AvroEncoderSuite extends AnyFunSuite {

  private def struct(fields: StructField*): StructType = StructType(fields)

  private def mismatch(schema: Schema, columns: StructType): String =
    intercept[AvroConversionException](new AvroEncoder(schema, columns)).getMessage

  /** What Avro's own reader reads from the encoder's bytes. */
  private def written(schema: Schema, columns: StructType, row: InternalRow): GenericRecord = {
    val (datum, whole) = avroRead(schema, new AvroEncoder(schema, columns).encode(row))
    assert(whole)
    datum.asInstanceOf[GenericRecord]
  }

  private val order = record(
    "Order",
    """{"name":"id","type":"long"}""",
    """{"name":"note","type":["null","string"],"default":null}""",
    """{"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"]},"default":"NEW"}""",
    """{"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[
      {"name":"sku","type":"string"},{"name":"price","type":"double"}]}},"default":[]}"""
  )
  private val itemType = struct(StructField("sku", StringType), StructField("price", DoubleType))

  test("the bytes are those Avro's own writer writes for the same record") {
    val columns = struct(
      StructField("id", LongType, nullable = false),
      StructField("note", StringType),
      StructField("status", StringType),
      StructField("items", ArrayType(itemType)))
    val row = CatalystValues.row(7L, utf8("hi"), utf8("PAID"), array(CatalystValues.row(utf8("k"), 2.5)))
    val item = order.getField("items").schema.getElementType
    val expected = new GenericRecordBuilder(order)
      .set("id", 7L)
      .set("note", "hi")
      .set("status", new GenericData.EnumSymbol(order.getField("status").schema, "PAID"))
      .set("items", Seq(new GenericRecordBuilder(item).set("sku", "k").set("price", 2.5).build()).asJava)
      .build()
    assert(new AvroEncoder(order, columns).encode(row).toSeq == avroWrite(order, expected).toSeq)
  }

  test("an Avro field without a column is written with its default; without a default it is an error") {
    val datum = written(order, struct(StructField("id", LongType, nullable = false)), CatalystValues.row(1L))
    assert(datum.get("note") == null && datum.get("status").toString == "NEW")
    assert(datum.get("items").asInstanceOf[java.util.List[_]].isEmpty)
    val e = mismatch(order, struct(StructField("note", StringType)))
    assert(
      e == "column id: the struct has no such column, and the Avro field has no default. Add the column " +
        "(of type bigint).",
      e)
  }

  test("a column the schema lacks is an error, with the field whose name differs only in case") {
    val e = mismatch(order, struct(StructField("id", LongType), StructField("Note", StringType)))
    assert(
      e.startsWith(
        "column Note: the Avro record Order has no field of that name (Avro names are " +
          "case-sensitive: it has note)"),
      e)
    val nested = mismatch(
      order,
      struct(StructField("id", LongType), StructField("items", ArrayType(itemType.add("qty", IntegerType)))))
    assert(nested.startsWith("column items[].qty: the Avro record Item has no field of that name."), nested)
  }

  test("a column of a type that does not fit fails naming the column and the type to cast to") {
    val e = mismatch(order, struct(StructField("id", StringType)))
    assert(e == "column id: a string column cannot be written as the Avro type long. Cast it to bigint.", e)
    val price = mismatch(
      order,
      struct(
        StructField("id", LongType),
        StructField(
          "items",
          ArrayType(struct(StructField("sku", StringType), StructField("price", DecimalType(5, 2)))))))
    assert(
      price.startsWith("column items[].price: a decimal(5,2) column cannot be written as the Avro type double"),
      price)
    val narrowing = mismatch(order, struct(StructField("id", DoubleType)))
    assert(narrowing.contains("column id: a double column"), narrowing)
  }

  test("narrower columns widen: byte and short to int, int to long, float to double; timestamps to millis") {
    val schema = record(
      "R",
      """{"name":"i","type":"int"}""",
      """{"name":"l","type":"long"}""",
      """{"name":"d","type":"double"}""",
      """{"name":"ms","type":{"type":"long","logicalType":"timestamp-millis"}}""",
      """{"name":"day","type":{"type":"int","logicalType":"date"}}"""
    )
    val columns = struct(
      StructField("i", ShortType),
      StructField("l", IntegerType),
      StructField("d", FloatType),
      StructField("ms", TimestampType),
      StructField("day", DateType))
    val datum = written(schema, columns, CatalystValues.row(-3.toShort, 5, 0.5f, -1001L, 19000))
    assert(datum.get("i") == -3 && datum.get("l") == 5L && datum.get("d") == 0.5)
    assert(datum.get("ms") == -2L, "microseconds to milliseconds rounds down, as Spark does")
    assert(datum.get("day") == 19000)
  }

  test("decimals: a column whose digits fit is written at the Avro scale; one that may not fit is an error") {
    val schema = record(
      "R",
      """{"name":"b","type":{"type":"bytes","logicalType":"decimal","precision":8,"scale":3}}""",
      """{"name":"f","type":{"type":"fixed","name":"F","size":4,"logicalType":"decimal","precision":8,"scale":3}}"""
    )
    val columns = struct(StructField("b", DecimalType(6, 2)), StructField("f", DecimalType(5, 3)))
    val datum = written(schema, columns, CatalystValues.row(Decimal("-1234.56"), Decimal("-12.345")))
    assert(new java.math.BigInteger(datum.get("b").asInstanceOf[ByteBuffer].array) == BigInt(-1234560).bigInteger)
    assert(
      datum.get("f").asInstanceOf[GenericData.Fixed].bytes.toSeq == BigInt(-12345).toByteArray.reverse
        .padTo(4, -1.toByte)
        .reverse
        .toSeq)
    val e = mismatch(schema, struct(StructField("b", DecimalType(10, 2)), StructField("f", DecimalType(5, 3))))
    assert(
      e.startsWith("column b: a decimal(10,2) column does not fit the Avro type decimal(8, 3)") &&
        e.endsWith("Cast it to decimal(8, 3)."),
      e)
  }

  test("a nullable column may feed a field that is not nullable; a null arriving there fails the record") {
    val columns = struct(StructField("id", LongType), StructField("items", ArrayType(itemType, containsNull = true)))
    val encoder = new AvroEncoder(order, columns)
    encoder.encode(CatalystValues.row(1L, array(CatalystValues.row(utf8("a"), 1.0))))
    val e = intercept[AvroEncodeException] {
      encoder.encode(CatalystValues.row(1L, array(CatalystValues.row(utf8("a"), null))))
    }
    assert(
      e.getMessage.startsWith("column items[].price: null, and its Avro type double is not nullable."),
      e.getMessage)
    val element = intercept[AvroEncodeException](encoder.encode(CatalystValues.row(1L, array(null))))
    assert(element.getMessage.startsWith("column items[]: null"), element.getMessage)
    // The encoder is still good after a failed record.
    val bytes = encoder.encode(CatalystValues.row(2L, array()))
    assert(avroRead(order, bytes)._1.asInstanceOf[GenericRecord].get("id") == 2L)
  }

  test("values the Avro type cannot hold fail the record naming the column") {
    val schema = record(
      "R",
      """{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}}""",
      """{"name":"f","type":{"type":"fixed","name":"F","size":2}}""")
    val encoder = new AvroEncoder(schema, struct(StructField("e", StringType), StructField("f", BinaryType)))
    val symbol = intercept[AvroEncodeException](encoder.encode(CatalystValues.row(utf8("C"), Array[Byte](1, 2))))
    assert(symbol.getMessage.startsWith("column e: 'C' is no symbol of the Avro enum E (A, B)."), symbol.getMessage)
    val size = intercept[AvroEncodeException](encoder.encode(CatalystValues.row(utf8("A"), Array[Byte](1))))
    assert(
      size.getMessage.startsWith("column f: 1 bytes, and its Avro type fixed(2) holds exactly 2."),
      size.getMessage)
  }

  test("unions: a column is written as the first branch it fits, or from a struct of members") {
    val schema = record(
      "R",
      """{"name":"u","type":["null","int","string"]}""",
      """{"name":"n","type":["int","long"]}""",
      """{"name":"nothing","type":["null","string"],"default":null}"""
    )
    def branch(columns: StructType, row: InternalRow): (Any, Any) = {
      val datum = written(schema, columns, row)
      (datum.get("u"), datum.get("n"))
    }
    val plain = struct(StructField("u", StringType), StructField("n", LongType), StructField("nothing", NullType))
    assert(
      branch(plain, CatalystValues.row(utf8("s"), 1L << 40, null)) == (new org.apache.avro.util.Utf8("s"), 1L << 40))
    assert(branch(plain, CatalystValues.row(null, 1L, null))._1 == null)
    val members = struct(
      StructField("u", struct(StructField("member0", IntegerType), StructField("member1", StringType))),
      StructField("n", IntegerType))
    assert(branch(members, CatalystValues.row(CatalystValues.row(4, null), 3)) == (4, 3))
    assert(branch(members, CatalystValues.row(CatalystValues.row(null, null), 3))._1 == null)
    val two = intercept[AvroEncodeException] {
      new AvroEncoder(schema, members).encode(CatalystValues.row(CatalystValues.row(4, utf8("s")), 3))
    }
    assert(two.getMessage.startsWith("column u: 2 members of the union are set (member0, member1)"), two.getMessage)
    val none = mismatch(schema, struct(StructField("u", BooleanType), StructField("n", LongType)))
    assert(none.startsWith("column u: a boolean column fits no branch of the Avro union [null, int, string]."), none)
  }

  test("the schema must be a record") {
    val e = mismatch(parse(""""string""""), struct(StructField("a", StringType)))
    assert(e.contains("is a string, not a record"), e)
  }
}
