// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import io.github.sparkkinesis.glue.avro.CatalystValues._
import io.github.sparkkinesis.testing.SeededProperties
import org.apache.avro.Schema
import org.apache.spark.sql.avro.SchemaConverters
import org.scalatest.funsuite.AnyFunSuite

/**
 * The schema mapping against Spark's own, `SchemaConverters` (public, in spark-sql's jar from Spark 4.0 on;
 * in spark-avro, which no line's tests have, on 3.5): `AvroSchemas.sqlType` gives the types Spark gives.
 * Where they differ by design it is said below: a union of null alone is NullType here (Spark: an empty
 * struct), and the logical types time-micros and timestamp-nanos, which Spark 4.1 and 4.3 map to types Spark
 * 3.5 lacks, are long here on every line, as Spark 3.5 and 4.0 map them.
 */
class SparkSchemaConvertersOracleSuite extends AnyFunSuite with SeededProperties {

  private def spark(schema: Schema) = SchemaConverters.toSqlType(schema).dataType

  private val schemas = Seq(
    """"null"""",
    """"boolean"""",
    """"int"""",
    """"long"""",
    """"float"""",
    """"double"""",
    """"bytes"""",
    """"string"""",
    """{"type":"fixed","name":"F","size":4}""",
    """{"type":"enum","name":"E","symbols":["A","B"]}""",
    """{"type":"int","logicalType":"date"}""",
    """{"type":"int","logicalType":"time-millis"}""",
    """{"type":"long","logicalType":"timestamp-millis"}""",
    """{"type":"long","logicalType":"timestamp-micros"}""",
    """{"type":"long","logicalType":"local-timestamp-millis"}""",
    """{"type":"long","logicalType":"local-timestamp-micros"}""",
    """{"type":"bytes","logicalType":"decimal","precision":38,"scale":10}""",
    """{"type":"fixed","name":"D","size":5,"logicalType":"decimal","precision":10,"scale":0}""",
    """{"type":"string","logicalType":"uuid"}""",
    """["null","string"]""",
    """["string","null"]""",
    """["int","long"]""",
    """["long","null","int"]""",
    """["float","double"]""",
    """["int",{"type":"long","logicalType":"timestamp-millis"}]""",
    """["null","double","float"]""",
    """["int","string"]""",
    """["null","int","string","boolean"]""",
    """["boolean"]""",
    """{"type":"array","items":["null","int"]}""",
    """{"type":"map","values":{"type":"array","items":"string"}}""",
    """{"type":"record","name":"Order","namespace":"ex","fields":[
      {"name":"id","type":"long"},
      {"name":"note","type":["null","string"],"default":null},
      {"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[
        {"name":"sku","type":"string"},
        {"name":"price","type":["null",{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}]},
        {"name":"attrs","type":{"type":"map","values":["null","string"]}}]}}},
      {"name":"first","type":["null","Item"]},
      {"name":"u","type":["null","Item",{"type":"enum","name":"S","symbols":["X"]},"long"]}]}"""
  )

  test("sqlType gives the Spark type Spark's SchemaConverters.toSqlType gives") {
    schemas.map(parse).foreach { schema =>
      assert(AvroSchemas.sqlType(schema) == spark(schema), schema.toString)
    }
  }

  test("the schema of any struct means to Spark what Spark's toAvroType schema of it means") {
    forAll(structType(3)) { struct =>
      val ours = AvroSchemas.fromSqlType(struct, "topLevelRecord", "ns")
      val sparks = SchemaConverters.toAvroType(struct, nullable = false, "topLevelRecord", "ns")
      assert(spark(ours) == spark(sparks))
      assert(AvroSchemas.sqlType(sparks) == spark(sparks))
    }
  }
}
