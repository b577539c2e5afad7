// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import io.github.sparkkinesis.glue.avro.CatalystValues
import io.github.sparkkinesis.glue.avro.CatalystValues.{array, map, row}
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen

/**
 * Random structs of the types [[ProtoSchemas.fromSqlType]] writes a `.proto` file for, rows of them, and
 * what the decoder reads back of a row written with that file (as `CatalystValues.comparable` gives it).
 */
object ProtoValues {

  private val atomicType: Gen[DataType] = Gen.oneOf[DataType](
    BooleanType,
    ByteType,
    ShortType,
    IntegerType,
    LongType,
    FloatType,
    DoubleType,
    StringType,
    BinaryType,
    TimestampType,
    DayTimeIntervalType())

  private val keyType: Gen[DataType] = Gen.oneOf[DataType](StringType, IntegerType, LongType, BooleanType)

  /** An array's element or a map's value: no array or map, which Protobuf nests only in messages. */
  private def elementType(depth: Int): Gen[DataType] =
    if (depth <= 0) atomicType else Gen.frequency(4 -> atomicType, 1 -> structType(depth - 1))

  def dataType(depth: Int): Gen[DataType] =
    if (depth <= 0) atomicType
    else
      Gen.frequency(
        6 -> atomicType,
        1 -> Gen.zip(elementType(depth - 1), Gen.oneOf(true, false)).map { case (e, n) => ArrayType(e, n) },
        1 -> Gen.zip(keyType, elementType(depth - 1), Gen.oneOf(true, false)).map { case (k, v, n) =>
          MapType(k, v, n)
        },
        1 -> structType(depth - 1)
      )

  def structType(depth: Int): Gen[StructType] =
    for {
      n <- Gen.choose(1, 5)
      types <- Gen.listOfN(n, Gen.zip(dataType(depth), Gen.oneOf(true, false)))
    } yield StructType(types.zipWithIndex.map { case ((t, nullable), i) => StructField(s"c$i", t, nullable) })

  /** A value of `dataType`; elements of arrays and values of maps never null, which Protobuf cannot hold. */
  def value(dataType: DataType, nullable: Boolean): Gen[Any] =
    if (nullable) Gen.frequency(1 -> Gen.const(null), 5 -> nonNull(dataType)) else nonNull(dataType)

  /** A value of `dataType`, not null; zero one time in five. */
  def nonNullValue(dataType: DataType): Gen[Any] = nonNull(dataType)

  private def zeroOr[T](gen: Gen[T], zero: T): Gen[T] = Gen.frequency(1 -> Gen.const(zero), 4 -> gen)

  private def nonNull(dataType: DataType): Gen[Any] = dataType match {
    case ByteType => zeroOr(Gen.choose(Byte.MinValue, Byte.MaxValue), 0.toByte)
    case ShortType => zeroOr(Gen.choose(Short.MinValue, Short.MaxValue), 0.toShort)
    case IntegerType => zeroOr(Gen.choose(Int.MinValue, Int.MaxValue), 0)
    case LongType | TimestampType | _: DayTimeIntervalType =>
      zeroOr(Gen.oneOf(Gen.choose(Long.MinValue, Long.MaxValue), Gen.choose(-3000000L, 3000000L)), 0L)
    case FloatType => zeroOr(CatalystValues.value(FloatType, nullable = false).map(_.asInstanceOf[Float]), 0.0f)
    case DoubleType => zeroOr(CatalystValues.value(DoubleType, nullable = false).map(_.asInstanceOf[Double]), 0.0)
    case StringType => zeroOr(CatalystValues.value(StringType, nullable = false), UTF8String.EMPTY_UTF8)
    case ArrayType(e, _) => Gen.choose(0, 4).flatMap(n => Gen.listOfN(n, nonNull(e))).map(vs => array(vs: _*))
    case MapType(k, v, _) =>
      for {
        n <- Gen.choose(0, 4)
        keys <- Gen.listOfN(n, nonNull(k)).map(_.distinct)
        values <- Gen.listOfN(keys.size, nonNull(v))
      } yield map(keys.zip(values): _*)
    case s: StructType => rowOf(s)
    case other => CatalystValues.value(other, nullable = false)
  }

  def rowOf(struct: StructType): Gen[InternalRow] =
    Gen.sequence[List[Any], Any](struct.fields.toList.map(f => value(f.dataType, f.nullable))).map(vs => row(vs: _*))

  /** The struct's type as the `.proto` file of it reads back: all nullable but elements and values; int for byte, short. */
  def readBack(dataType: DataType): DataType = dataType match {
    case ByteType | ShortType => IntegerType
    case s: StructType => StructType(s.fields.map(f => StructField(f.name, readBack(f.dataType), nullable = true)))
    case ArrayType(e, _) => ArrayType(readBack(e), containsNull = false)
    case MapType(k, v, _) => MapType(readBack(k), readBack(v), valueContainsNull = false)
    case other => other
  }

  /**
   * What the decoder reads of `value` (of `dataType`, in a field of the struct nullable or not) written with
   * the `.proto` file of the struct: a not nullable scalar's zero is null (proto3 writes no zero of a field
   * without presence, and Spark reads its absence as null); a null array or map is empty.
   */
  def expected(value: Any, dataType: DataType, nullable: Boolean): Any = (value, dataType) match {
    case (null, _: ArrayType) => Nil
    case (null, _: MapType) => ("map", Map.empty, 0)
    case (null, _) => null
    case (row: InternalRow, s: StructType) =>
      s.fields.toSeq.zipWithIndex.map { case (f, i) =>
        f.name -> expected(if (row.isNullAt(i)) null else row.get(i, f.dataType), f.dataType, f.nullable)
      }
    case (a: ArrayData, ArrayType(e, _)) => (0 until a.numElements()).map(i => element(a.get(i, e), e))
    case (m: MapData, MapType(k, v, _)) =>
      val keys = (0 until m.numElements()).map(i => CatalystValues.comparable(m.keyArray().get(i, k), k))
      val values = (0 until m.numElements()).map(i => element(m.valueArray().get(i, v), v))
      ("map", keys.zip(values).toMap, keys.size)
    case (v, t) if !nullable && isZero(v, t) => null
    case (v, t) => CatalystValues.comparable(v, t)
  }

  /** An element or map value, written whatever it is: a struct's fields by their own presence. */
  private def element(value: Any, dataType: DataType): Any = dataType match {
    case s: StructType => expected(value, s, nullable = false)
    case t => CatalystValues.comparable(value, t)
  }

  private def isZero(value: Any, dataType: DataType): Boolean = (value, dataType) match {
    case (_, TimestampType | _: DayTimeIntervalType) => false // a message: written when set
    case (v: Float, _) => java.lang.Float.floatToRawIntBits(v) == 0
    case (v: Double, _) => java.lang.Double.doubleToRawLongBits(v) == 0L
    case (v: Byte, _) => v == 0
    case (v: Short, _) => v == 0
    case (v: Int, _) => v == 0
    case (v: Long, _) => v == 0L
    case (v: Boolean, _) => !v
    case (v: UTF8String, _) => v.numBytes == 0
    case (v: Array[Byte], _) => v.isEmpty
    case _ => false
  }
}
