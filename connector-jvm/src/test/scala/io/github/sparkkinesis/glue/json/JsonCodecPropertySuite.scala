// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.json

import java.time.{LocalDateTime, ZoneOffset}
import java.util.Base64

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{DeserializationFeature, ObjectMapper}
import io.github.sparkkinesis.glue.avro.CatalystValues
import io.github.sparkkinesis.glue.avro.CatalystValues._
import io.github.sparkkinesis.testing.SeededProperties
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * Rows of any struct (nested structs, arrays, maps, every type JSON holds, nulls) written with the schema
 * [[JsonSchemas.fromSqlType]] gives: the decoder reads each back as the schema's Spark type says, Jackson's
 * ObjectMapper reads it as one object of the struct's columns, and a row holding a NaN or an infinity fails
 * alone, the encoder good for the next.
 */
class JsonCodecPropertySuite extends AnyFunSuite with SeededProperties {

  private val structsAndRows: Gen[(StructType, List[InternalRow])] =
    for {
      struct <- structType(3)
      rows <- Gen.listOfN(5, rowOf(struct))
    } yield (struct, rows)

  /** Numbers with a fraction read as doubles, as the decoder reads them (a BigDecimal would lose -0.0). */
  private val mapper = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)

  /** Whether `value` holds a NaN or infinite float or double anywhere: JSON has no such numbers. */
  private def nonFinite(value: Any, dataType: DataType): Boolean = (value, dataType) match {
    case (f: Float, _) => f.isNaN || f.isInfinite
    case (d: Double, _) => d.isNaN || d.isInfinite
    case (row: InternalRow, s: StructType) =>
      s.fields.indices.exists(i => nonFinite(row.get(i, s(i).dataType), s(i).dataType))
    case (array: ArrayData, ArrayType(e, _)) => (0 until array.numElements()).exists(i => nonFinite(array.get(i, e), e))
    case (map: MapData, MapType(_, v, _)) => nonFinite(map.valueArray(), ArrayType(v))
    case _ => false
  }

  private def double(d: Double): Any = ("double", java.lang.Double.doubleToLongBits(d))

  /**
   * What the decoder reads, as `comparable` gives it, of `value` of `dataType` written with the schema of
   * `fromSqlType`: integral numbers as longs; floats as the double of the digits Jackson writes for them
   * (Java's shortest for the float); decimals as the double nearest them; binary as base64; timestamp_ntz as
   * ISO-8601 local date-time text with six digits of microseconds when they are not zero.
   */
  private def expected(value: Any, dataType: DataType): Any = (value, dataType) match {
    case (null, _) => null
    case (row: InternalRow, s: StructType) =>
      s.fields.toSeq.zipWithIndex.map { case (f, i) => f.name -> expected(row.get(i, f.dataType), f.dataType) }
    case (array: ArrayData, ArrayType(e, _)) => (0 until array.numElements()).map(i => expected(array.get(i, e), e))
    case (map: MapData, MapType(_, v, _)) =>
      val n = map.numElements()
      val keys = (0 until n).map(i => map.keyArray().getUTF8String(i).toString)
      val values = (0 until n).map(i => expected(map.valueArray().get(i, v), v))
      ("map", keys.zip(values).toMap, n)
    case (f: Float, _) => double(java.lang.Double.parseDouble(java.lang.Float.toString(f)))
    case (d: Double, _) => double(d)
    case (d: Decimal, _) => double(d.toJavaBigDecimal.doubleValue)
    case (b: Array[Byte], _) => Base64.getEncoder.encodeToString(b)
    case (micros: Long, TimestampNTZType) =>
      val fraction = Math.floorMod(micros, 1000000L)
      val t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1000000L), 0, ZoneOffset.UTC)
      f"${t.toLocalDate}T${t.getHour}%02d:${t.getMinute}%02d:${t.getSecond}%02d" +
        (if (fraction == 0) "" else f".$fraction%06d")
    case (b: Byte, _) => b.toLong
    case (s: Short, _) => s.toLong
    case (i: Int, _) => i.toLong
    case (s: UTF8String, _) => s.toString
    case (other, _) => other
  }

  test("rows written by the encoder read back through the decoder as the schema's Spark types say") {
    forAll(structsAndRows) { case (struct, rows) =>
      val schema = JsonSchemas.fromSqlType(struct, "Row")
      val sqlType = JsonSchemas.sqlType(schema)
      val encoder = new JsonEncoder(schema, struct)
      val decoder = new JsonDecoder(sqlType)
      rows.foreach { row =>
        if (nonFinite(row, struct)) {
          val e = intercept[JsonEncodeException](encoder.encode(row))
          assert(e.getMessage.contains(": a NaN or infinite number"), e.getMessage)
        } else {
          val bytes = encoder.encode(row)
          assert(comparable(decoder.decode(bytes, 0, bytes.length), sqlType) == expected(row, struct))
        }
      }
    }
  }

  test("Jackson's ObjectMapper reads each record as one object of the struct's columns, and what it writes back") {
    forAll(structsAndRows) { case (struct, rows) =>
      val schema = JsonSchemas.fromSqlType(struct, "Row")
      val sqlType = JsonSchemas.sqlType(schema)
      val encoder = new JsonEncoder(schema, struct)
      val decoder = new JsonDecoder(sqlType)
      rows.filterNot(nonFinite(_, struct)).foreach { row =>
        val bytes = encoder.encode(row)
        val tree = mapper.readTree(bytes)
        assert(tree.isObject && tree.fieldNames.asScala.toSeq == struct.fieldNames.toSeq)
        val rewritten = mapper.writeValueAsBytes(tree)
        assert(
          comparable(decoder.decode(rewritten, 0, rewritten.length), sqlType) ==
            comparable(decoder.decode(bytes, 0, bytes.length), sqlType))
      }
    }
  }

  test("a struct without some of the schema's optional properties leaves them out; the decoder reads null") {
    val evolutions = for {
      narrow <- structType(3)
      extra <- structType(2)
      added = extra.fields.map(f => f.copy(name = s"x${f.name}", nullable = true))
      wide = StructType(narrow.fields.zipAll(added, null, null).flatMap { case (a, b) => Seq(a, b) }.filter(_ != null))
      rows <- Gen.listOfN(3, rowOf(narrow))
    } yield (narrow, wide, rows)
    forAll(evolutions) { case (narrow, wide, rows) =>
      val schema = JsonSchemas.fromSqlType(wide, "Row")
      val sqlType = JsonSchemas.sqlType(schema)
      val encoder = new JsonEncoder(schema, narrow)
      val decoder = new JsonDecoder(sqlType)
      rows.filterNot(nonFinite(_, narrow)).foreach { row =>
        val bytes = encoder.encode(row)
        assert(mapper.readTree(bytes).fieldNames.asScala.toSeq == narrow.fieldNames.toSeq)
        val widened = CatalystValues.row(wide.fields.toSeq.map { f =>
          if (narrow.fieldNames.contains(f.name)) row.get(narrow.fieldIndex(f.name), f.dataType) else null
        }: _*)
        assert(comparable(decoder.decode(bytes, 0, bytes.length), sqlType) == expected(widened, wide))
      }
    }
  }
}
