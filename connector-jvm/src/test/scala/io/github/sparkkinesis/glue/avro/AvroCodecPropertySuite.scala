// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import io.github.sparkkinesis.glue.avro.CatalystValues._
import io.github.sparkkinesis.testing.SeededProperties
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * Rows of any struct (nested structs, arrays, maps, every type Avro holds, nulls) survive the trip to Avro
 * and back, and the bytes are Avro's: Avro's own GenericDatumReader reads exactly the datum the encoder
 * wrote, and what Avro's GenericDatumWriter writes of it the decoder reads as the row written. Hostile
 * bytes (cut, changed, random) fail as AvroDecodeException and nothing else.
 */
class AvroCodecPropertySuite extends AnyFunSuite with SeededProperties {

  private val structsAndRows: Gen[(StructType, List[InternalRow])] =
    for {
      struct <- structType(3)
      rows <- Gen.listOfN(5, rowOf(struct))
    } yield (struct, rows)

  test("rows written by the encoder read back equal through the decoder") {
    forAll(structsAndRows) { case (struct, rows) =>
      val schema = AvroSchemas.fromSqlType(struct, "Row", "test")
      val sqlType = AvroSchemas.sqlType(schema)
      val encoder = new AvroEncoder(schema, struct)
      val decoder = new AvroDecoder(schema, sqlType)
      rows.foreach { row =>
        val bytes = encoder.encode(row)
        assert(comparable(decoder.decode(schema, bytes, 0, bytes.length), sqlType) == comparable(row, struct))
      }
    }
  }

  test("Avro's reader reads every byte the encoder writes; the decoder reads what Avro's writer writes") {
    forAll(structsAndRows) { case (struct, rows) =>
      val schema = AvroSchemas.fromSqlType(struct, "Row", "test")
      val sqlType = AvroSchemas.sqlType(schema)
      val encoder = new AvroEncoder(schema, struct)
      val decoder = new AvroDecoder(schema, sqlType)
      rows.foreach { row =>
        val (datum, readWhole) = avroRead(schema, encoder.encode(row))
        assert(readWhole, "Avro's reader read every byte")
        val avroBytes = avroWrite(schema, datum)
        // Inside a larger array, from an offset: the decoder reads its slice only.
        val framed = Array[Byte](3, 0, 7) ++ avroBytes ++ Array[Byte](-1, -1)
        val decoded = decoder.decode(schema, framed, 3, avroBytes.length)
        assert(comparable(decoded, sqlType) == comparable(row, struct))
      }
    }
  }

  /** A struct, a wider one with nullable columns of any type between its columns, and rows of the wider. */
  private val evolutions: Gen[(StructType, StructType, List[InternalRow])] =
    for {
      narrow <- structType(3)
      extra <- structType(2)
      added = extra.fields.map(f => f.copy(name = s"x${f.name}", nullable = true))
      wide = StructType(narrow.fields.zipAll(added, null, null).flatMap { case (a, b) => Seq(a, b) }.filter(_ != null))
      rows <- Gen.listOfN(3, rowOf(wide))
    } yield (narrow, wide, rows)

  private def project(row: InternalRow, from: StructType, to: StructType): InternalRow =
    CatalystValues.row(to.fields.toSeq.map(f => row.get(from.fieldIndex(f.name), f.dataType)): _*)

  test("a reader without some of the writer's fields skips them, of whatever type") {
    forAll(evolutions) { case (narrow, wide, rows) =>
      val writer = AvroSchemas.fromSqlType(wide, "Row", "test")
      val reader = AvroSchemas.fromSqlType(narrow, "Row", "test")
      val encoder = new AvroEncoder(writer, wide)
      val decoder = new AvroDecoder(reader, AvroSchemas.sqlType(reader))
      rows.foreach { row =>
        val bytes = encoder.encode(row)
        assert(
          comparable(decoder.decode(writer, bytes, 0, bytes.length), AvroSchemas.sqlType(reader)) ==
            comparable(project(row, wide, narrow), narrow))
      }
    }
  }

  test("a reader with more fields, nullable, reads data of fewer with those fields null") {
    forAll(evolutions) { case (narrow, wide, rows) =>
      val writer = AvroSchemas.fromSqlType(narrow, "Row", "test")
      val reader = AvroSchemas.fromSqlType(wide, "Row", "test")
      val encoder = new AvroEncoder(writer, narrow)
      val decoder = new AvroDecoder(reader, AvroSchemas.sqlType(reader))
      rows.map(project(_, wide, narrow)).foreach { row =>
        val bytes = encoder.encode(row)
        val expected = CatalystValues.row(wide.fields.toSeq.map { f =>
          if (narrow.fieldNames.contains(f.name)) row.get(narrow.fieldIndex(f.name), f.dataType) else null
        }: _*)
        assert(
          comparable(decoder.decode(writer, bytes, 0, bytes.length), AvroSchemas.sqlType(reader)) ==
            comparable(expected, wide))
      }
    }
  }

  test("a datum cut short fails as AvroDecodeException, whatever the cut") {
    forAll(structsAndRows, Gen.choose(0.0, 1.0)) { case ((struct, rows), at) =>
      val schema = AvroSchemas.fromSqlType(struct, "Row", "test")
      val encoder = new AvroEncoder(schema, struct)
      val decoder = new AvroDecoder(schema, AvroSchemas.sqlType(schema))
      rows.map(encoder.encode).filter(_.nonEmpty).foreach { bytes =>
        val length = math.min(bytes.length - 1, (bytes.length * at).toInt)
        val e = intercept[AvroDecodeException](decoder.decode(schema, bytes, 0, length))
        assert(e.getMessage.contains(s"A record of $length bytes"), e.getMessage)
      }
    }
  }

  test("changed or random bytes give a value or an AvroDecodeException, never another error") {
    val hostile = for {
      (struct, rows) <- structsAndRows
      bytes <- Gen.oneOf(
        Gen.listOf(Gen.choose(Byte.MinValue, Byte.MaxValue)).map(_.toArray),
        for {
          row <- Gen.oneOf(rows)
          at <- Gen.choose(0.0, 1.0)
          value <- Gen.choose(Byte.MinValue, Byte.MaxValue)
        } yield {
          val bytes = new AvroEncoder(AvroSchemas.fromSqlType(struct, "Row", "test"), struct).encode(row)
          if (bytes.isEmpty) bytes else bytes.updated(math.min(bytes.length - 1, (bytes.length * at).toInt), value)
        }
      )
    } yield (struct, bytes, rows.head)
    forAll(hostile) { case (struct, bytes, row) =>
      val schema = AvroSchemas.fromSqlType(struct, "Row", "test")
      val decoder = new AvroDecoder(schema, AvroSchemas.sqlType(schema))
      try decoder.decode(schema, bytes, 0, bytes.length)
      catch { case _: AvroDecodeException => () }
      // The decoder is still good for the next record.
      val good = new AvroEncoder(schema, struct).encode(row)
      assert(
        comparable(decoder.decode(schema, good, 0, good.length), AvroSchemas.sqlType(schema)) ==
          comparable(row, struct))
    }
  }
}
