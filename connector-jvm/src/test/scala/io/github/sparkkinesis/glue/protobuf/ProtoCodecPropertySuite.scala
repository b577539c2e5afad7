// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import io.github.sparkkinesis.glue.avro.CatalystValues.comparable
import io.github.sparkkinesis.testing.SeededProperties
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * Structs of any shape Protobuf holds (nested structs, arrays and maps of them, every type it has an
 * equivalent for, nulls and zeros) and the `.proto` file [[ProtoSchemas.fromSqlType]] gives them: the
 * parser reads the file back as the struct's type (but for what Protobuf cannot say), the encoder takes the
 * struct, and the decoder reads each row back as a user wrote it, but for the zeros of fields without
 * presence. protobuf-java checks the same bytes on the Spark 4 lines (`ProtoEncoderOracleSuite`).
 */
class ProtoCodecPropertySuite extends AnyFunSuite with SeededProperties {

  private val structsAndRows: Gen[(StructType, String, List[InternalRow])] =
    for {
      struct <- ProtoValues.structType(3)
      name <- Gen.oneOf("Row", "shop.v1.Row")
      rows <- Gen.listOfN(5, ProtoValues.rowOf(struct))
    } yield (struct, name, rows)

  test("the .proto file of a struct reads back as its type; its rows read back through the decoder") {
    forAll(structsAndRows) { case (struct, name, rows) =>
      val text = ProtoSchemas.fromSqlType(struct, name)
      val file = ProtoParser.parse(text)
      assert(ProtoSchemas.sqlType(file, name) == ProtoValues.readBack(struct), text)
      val encoder = new ProtoEncoder(file, name, struct)
      val decoder = new ProtoDecoder(file, name)
      rows.foreach { row =>
        val bytes = encoder.encode(row)
        assert(bytes.head == 0, "the file's one top-level message comes first in the index")
        assert(
          comparable(decoder.decode(bytes, 1, bytes.length - 1), decoder.dataType) ==
            ProtoValues.expected(row, struct, nullable = false),
          text)
      }
    }
  }

}
