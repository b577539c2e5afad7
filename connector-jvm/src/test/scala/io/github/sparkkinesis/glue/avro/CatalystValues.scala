// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import scala.jdk.CollectionConverters._

import org.apache.avro.generic.{GenericData, GenericDatumReader, GenericDatumWriter}
import org.apache.avro.io.{DecoderFactory, EncoderFactory}
import org.apache.avro.Schema
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData, GenericArrayData, MapData}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen

/**
 * Spark's internal values for the Avro tests: random types and values of them, a comparable form of a value
 * (rows as Seqs, maps as Maps, floats by their bits, integral numbers as Long), and Avro's own generic
 * reader and writer, the outside oracle of the bytes.
 */
object CatalystValues {

  /** `value` of `dataType` as plain Scala values that compare by ==. */
  def comparable(value: Any, dataType: DataType): Any = (value, dataType) match {
    case (null, _) => null
    case (row: InternalRow, s: StructType) =>
      s.fields.toSeq.zipWithIndex.map { case (f, i) =>
        (f.name, if (row.isNullAt(i)) null else comparable(row.get(i, f.dataType), f.dataType))
      }
    case (array: ArrayData, ArrayType(e, _)) =>
      (0 until array.numElements()).map(i => if (array.isNullAt(i)) null else comparable(array.get(i, e), e))
    case (map: MapData, MapType(k, v, _)) =>
      val keys = comparable(map.keyArray(), ArrayType(k)).asInstanceOf[Seq[Any]]
      val values = comparable(map.valueArray(), ArrayType(v)).asInstanceOf[Seq[Any]]
      ("map", keys.zip(values).toMap, keys.size)
    case (b: Array[Byte], _) => b.toSeq
    case (f: Float, _) => ("float", java.lang.Float.floatToIntBits(f))
    case (d: Double, _) => ("double", java.lang.Double.doubleToLongBits(d))
    case (b: Byte, _) => b.toLong
    case (s: Short, _) => s.toLong
    case (i: Int, _) => i.toLong
    case (d: Decimal, _) => d.toJavaBigDecimal
    case (s: UTF8String, _) => s.toString
    case (other, _) => other
  }

  /** The number of fields at the leaves of `dataType`, each struct's fields counted, other types one. */
  def leaves(dataType: DataType): Int = dataType match {
    case s: StructType => s.fields.map(f => leaves(f.dataType)).sum
    case _ => 1
  }

  def row(values: Any*): InternalRow = new GenericInternalRow(values.toArray)

  def array(values: Any*): ArrayData = new GenericArrayData(values.toArray)

  def map(entries: (Any, Any)*): MapData =
    new ArrayBasedMapData(array(entries.map(_._1): _*), array(entries.map(_._2): _*))

  def utf8(s: String): UTF8String = UTF8String.fromString(s)

  // ---- random types and values ----

  private val decimalType: Gen[DataType] =
    for { p <- Gen.choose(1, DecimalType.MAX_PRECISION); s <- Gen.choose(0, p) } yield DecimalType(p, s)

  val atomicType: Gen[DataType] = Gen.oneOf(
    Gen.oneOf[DataType](
      BooleanType,
      ByteType,
      ShortType,
      IntegerType,
      LongType,
      FloatType,
      DoubleType,
      StringType,
      BinaryType,
      DateType,
      TimestampType,
      TimestampNTZType,
      NullType),
    decimalType
  )

  def dataType(depth: Int): Gen[DataType] =
    if (depth <= 0) atomicType
    else
      Gen.frequency(
        6 -> atomicType,
        1 -> Gen.zip(dataType(depth - 1), Gen.oneOf(true, false)).map { case (e, n) =>
          ArrayType(e, n || e == NullType)
        },
        1 -> Gen.zip(dataType(depth - 1), Gen.oneOf(true, false)).map { case (v, n) =>
          MapType(StringType, v, n || v == NullType)
        },
        1 -> structType(depth - 1)
      )

  def structType(depth: Int): Gen[StructType] =
    for {
      n <- Gen.choose(1, 5)
      types <- Gen.listOfN(n, Gen.zip(dataType(depth), Gen.oneOf(true, false)))
    } yield StructType(types.zipWithIndex.map { case ((t, nullable), i) =>
      StructField(s"c$i", t, nullable || t == NullType)
    })

  private val strings: Gen[String] =
    Gen.frequency(4 -> Gen.alphaNumStr, 1 -> Gen.oneOf("", "ключ", "キー", "\uD83D\uDD11", "é" * 40))

  private val bytes: Gen[Array[Byte]] =
    Gen.choose(0, 20).flatMap(n => Gen.listOfN(n, Gen.choose(Byte.MinValue, Byte.MaxValue)).map(_.toArray))

  def value(dataType: DataType, nullable: Boolean): Gen[Any] =
    if (nullable || dataType == NullType) Gen.frequency(1 -> Gen.const(null), 5 -> nonNull(dataType))
    else nonNull(dataType)

  private def nonNull(dataType: DataType): Gen[Any] = dataType match {
    case NullType => Gen.const(null)
    case BooleanType => Gen.oneOf(true, false)
    case ByteType => Gen.choose(Byte.MinValue, Byte.MaxValue)
    case ShortType => Gen.choose(Short.MinValue, Short.MaxValue)
    case IntegerType | DateType => Gen.oneOf(Gen.choose(Int.MinValue, Int.MaxValue), Gen.choose(-1000, 1000))
    case LongType | TimestampType | TimestampNTZType =>
      Gen.oneOf(Gen.choose(Long.MinValue, Long.MaxValue), Gen.choose(-100000L, 100000L))
    case FloatType =>
      Gen.oneOf(
        Gen.choose(-1e6, 1e6).map(_.toFloat),
        Gen.oneOf(Float.NaN, Float.NegativeInfinity, -0.0f, Float.MinPositiveValue))
    case DoubleType =>
      Gen.oneOf(Gen.choose(-1e12, 1e12), Gen.oneOf(Double.NaN, Double.PositiveInfinity, -0.0, Double.MaxValue))
    case StringType => strings.map(UTF8String.fromString)
    case BinaryType => bytes
    case d: DecimalType =>
      for {
        digits <- Gen.choose(1, d.precision)
        unscaled <- Gen.listOfN(digits, Gen.numChar).map(cs => BigInt(cs.mkString))
        negative <- Gen.oneOf(true, false)
      } yield Decimal(BigDecimal(if (negative) -unscaled else unscaled, d.scale), d.precision, d.scale)
    case ArrayType(e, containsNull) =>
      Gen.choose(0, 4).flatMap(n => Gen.listOfN(n, value(e, containsNull))).map(vs => array(vs: _*))
    case MapType(_, v, valueContainsNull) =>
      for {
        n <- Gen.choose(0, 4)
        keys <- Gen.listOfN(n, strings).map(_.distinct)
        values <- Gen.listOfN(keys.size, value(v, valueContainsNull))
      } yield map(keys.map(UTF8String.fromString).zip(values): _*)
    case s: StructType => rowOf(s)
    case other => throw new IllegalArgumentException(s"no values of $other")
  }

  def rowOf(struct: StructType): Gen[InternalRow] =
    Gen.sequence[List[Any], Any](struct.fields.toList.map(f => value(f.dataType, f.nullable))).map(vs => row(vs: _*))

  // ---- Avro's own reader and writer ----

  /** What Avro's GenericDatumReader reads from a datum of `schema`, and whether it read every byte. */
  def avroRead(schema: Schema, bytes: Array[Byte]): (AnyRef, Boolean) = {
    val in = DecoderFactory.get.binaryDecoder(bytes, null)
    val datum = new GenericDatumReader[AnyRef](schema, schema, GenericData.get).read(null, in)
    (datum, in.isEnd)
  }

  /** `datum` as Avro's GenericDatumWriter writes it with `schema`. */
  def avroWrite(schema: Schema, datum: Any): Array[Byte] = {
    val bytes = new java.io.ByteArrayOutputStream()
    val out = EncoderFactory.get.binaryEncoder(bytes, null)
    new GenericDatumWriter[Any](schema, GenericData.get).write(datum, out)
    out.flush()
    bytes.toByteArray
  }

  def parse(json: String): Schema = new Schema.Parser().parse(json)

  /** A record schema `name` of the given fields, each a `"name": type` JSON pair list entry. */
  def record(name: String, fields: String*): Schema =
    parse(s"""{"type":"record","name":"$name","fields":[${fields.mkString(",")}]}""")

  def fieldNames(schema: Schema): Seq[String] = schema.getFields.asScala.map(_.name).toSeq
}
