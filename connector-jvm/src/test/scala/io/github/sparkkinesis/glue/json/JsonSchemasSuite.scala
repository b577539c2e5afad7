// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.json

import com.fasterxml.jackson.databind.ObjectMapper
import io.github.sparkkinesis.glue.avro.CatalystValues
import io.github.sparkkinesis.glue.avro.CatalystValues.structType
import io.github.sparkkinesis.testing.SeededProperties
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

/**
 * JSON Schema documents as producers write them, and the Spark types records of them are read as: what a
 * user sees as the column's type, and the message naming the place in the schema Spark cannot represent.
 * The schema of a struct, as it is registered, and what the writer makes of a schema.
 */
class JsonSchemasSuite extends AnyFunSuite with SeededProperties {

  private def sqlType(schema: String): DataType = JsonSchemas.sqlType(schema)

  private def failure(schema: String): String = intercept[JsonSchemaException](sqlType(schema)).getMessage

  test("an object's properties in their order; nullable unless required and excluding null") {
    val schema =
      """{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        | "required": ["id", "name", "note"],
        | "properties": {
        |   "name": {"type": "string"}, "id": {"type": "integer"}, "price": {"type": "number"},
        |   "paid": {"type": "boolean"}, "day": {"type": "string", "format": "date"},
        |   "at": {"type": "string", "format": "date-time"}, "mail": {"type": "string", "format": "email"},
        |   "note": {"type": ["string", "null"]}, "tags": {"type": "array", "items": {"type": "string"}}}}
        |""".stripMargin
    assert(
      sqlType(schema) == StructType(Seq(
        StructField("name", StringType, nullable = false),
        StructField("id", LongType, nullable = false),
        StructField("price", DoubleType),
        StructField("paid", BooleanType),
        StructField("day", DateType),
        StructField("at", TimestampType),
        StructField("mail", StringType),
        StructField("note", StringType),
        StructField("tags", ArrayType(StringType, containsNull = false))
      )))
  }

  test("nullable alternatives, enums and consts, and integer or number as a double") {
    val schema =
      """{"type": "object", "required": ["a", "b", "c", "d", "e", "f", "g", "h"], "properties": {
        | "a": {"oneOf": [{"type": "null"}, {"type": "integer"}]},
        | "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        | "c": {"enum": ["red", "green"]}, "d": {"enum": [1, 2, null]}, "e": {"const": "v1"},
        | "f": {"type": ["integer", "number"]}, "g": {"enum": [1, 2.5]},
        | "h": {"type": ["string", "null"], "enum": ["x"]}}}""".stripMargin
    assert(
      sqlType(schema) == StructType(Seq(
        StructField("a", LongType),
        StructField("b", StringType),
        StructField("c", StringType, nullable = false),
        StructField("d", LongType),
        StructField("e", StringType, nullable = false),
        StructField("f", DoubleType, nullable = false),
        StructField("g", DoubleType, nullable = false),
        StructField("h", StringType)
      )))
  }

  test("values of several JSON types, and objects without properties, are read as JSON text") {
    val schema =
      """{"type": "object", "properties": {
        | "any": {}, "several": {"type": ["string", "integer"]},
        | "either": {"oneOf": [{"type": "string"}, {"type": "object", "properties": {"x": {"type": "integer"}}}]},
        | "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        | "attributes": {"type": "object"}, "list": {"type": "array"}}}""".stripMargin
    assert(
      sqlType(schema) == StructType(Seq(
        StructField("any", StringType),
        StructField("several", StringType),
        StructField("either", StringType),
        StructField("counts", MapType(StringType, LongType, valueContainsNull = false)),
        StructField("attributes", MapType(StringType, StringType)),
        StructField("list", ArrayType(StringType))
      )))
  }

  test("local $refs to definitions and $defs, and allOf merged into one struct") {
    val schema =
      """{"type": "object", "definitions": {"Money": {"type": "number"}},
        | "$defs": {"Item": {"type": "object", "required": ["sku"], "properties": {
        |   "sku": {"type": "string"}, "price": {"$ref": "#/definitions/Money"}}}},
        | "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        |   "order": {"allOf": [{"$ref": "#/$defs/Item"},
        |     {"type": "object", "properties": {"qty": {"type": "integer"}}}]}}}""".stripMargin
    val item = StructType(Seq(StructField("sku", StringType, nullable = false), StructField("price", DoubleType)))
    assert(
      sqlType(schema) == StructType(
        Seq(
          StructField("items", ArrayType(item, containsNull = false)),
          StructField("order", item.add(StructField("qty", LongType)))
        )))
  }

  test("a recursive $ref fails naming the path and the chain of references") {
    val message = failure("""{"type": "object", "$defs": {"Node": {"type": "object", "properties": {
        | "value": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}}}},
        | "properties": {"head": {"$ref": "#/$defs/Node"}}}""".stripMargin)
    assert(
      message == "The JSON Schema at properties.head.properties.next refers to #/$defs/Node recursively " +
        "(#/$defs/Node -> #/$defs/Node): Spark types cannot nest without end: bound the nesting, or give the " +
        "recursive property as an object without properties (a map of JSON text).")
  }

  test("definitions that each use the next one twice are refused 20 deep, before their type is built; 8 deep read") {
    // L0 holds two L1s, each L1 two L2s, ...: 2^depth copies of the last definition in Spark's type.
    def doubling(depth: Int): String = {
      val defs = (0 until depth).map { i =>
        s""""L$i": {"type": "object", "properties": {"a": {"$$ref": "#/$$defs/L${i + 1}"}, """ +
          s""""b": {"$$ref": "#/$$defs/L${i + 1}"}}}"""
      } :+ s""""L$depth": {"type": "object", "properties": {"x": {"type": "integer"}}}"""
      s"""{"$$ref": "#/$$defs/L0", "$$defs": {${defs.mkString(", ")}}}"""
    }
    assert(
      failure(doubling(20)) == "The JSON Schema unfolds into a Spark type of more than 100,000 fields and values, " +
        "as its definitions under $ref are repeated in full at every place they are used. Register a schema whose " +
        "types nest fewer times, or one that keeps the deeper parts as bytes or JSON text.")
    assert(CatalystValues.leaves(sqlType(doubling(8))) == 256)
  }

  test("a $ref that is no JSON pointer is refused like one to nothing") {
    assert(
      failure("""{"type": "object", "properties": {"a": {"$ref": "#Name"}}}""") ==
        "The JSON Schema at properties.a refers to #Name, which the schema does not define: define it.")
  }

  test("unsupported constructs fail naming the place and what to do") {
    def field(schema: String) = s"""{"type": "object", "properties": {"f": {"type": "array", "items": $schema}}}"""
    assert(
      failure(field("""{"type": "array", "items": [{"type": "string"}]}""")).startsWith(
        "The JSON Schema at properties.f.items is a tuple (items given as an array, or prefixItems)"))
    assert(failure(field("""{"$ref": "other.json#/Item"}""")).contains("at properties.f.items refers to other.json"))
    assert(failure(field("""{"$ref": "#/$defs/Missing"}""")).contains("which the schema does not define"))
    assert(failure(field("""{"type": "decimal"}""")).contains("has the unknown type 'decimal': use one of array,"))
    assert(
      failure(field("""{"allOf": [{"type": "string"}, {"type": "integer"}]}"""))
        .contains("at properties.f.items has parts in allOf of different types (string, bigint)"))
    assert(
      failure("""{"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"a": {"type": "integer"}}}]}""")
        .contains("give the property a different types"))
    assert(failure(field("false")).contains("is the schema false"))
    assert(failure("""{"type": """).startsWith("The schema is no JSON document"))
    assert(failure("[1]").startsWith("The schema is no JSON Schema"))
  }

  // ---- what the writer makes of a schema ----

  test("writerType tells a value of any JSON type from a string, and marks the properties required lists") {
    val schema =
      """{"type": "object", "required": ["id", "note"], "properties": {"id": {"type": "integer"},
        | "note": {"type": ["string", "null"]}, "any": {}, "list": {"type": "array"},
        | "attributes": {"type": "object"}, "either": {"oneOf": [{"type": "string"}, {}]}}}""".stripMargin
    import JsonSchemas.{AnyJson, Required}
    assert(
      JsonSchemas.writerType(schema) == StructType(Seq(
        StructField("id", LongType, nullable = false, Required),
        StructField("note", StringType, nullable = true, Required),
        StructField("any", AnyJson),
        StructField("list", ArrayType(AnyJson)),
        StructField("attributes", MapType(StringType, AnyJson)),
        StructField("either", StringType)
      )))
    assert(
      sqlType(schema) == StructType(Seq(
        StructField("id", LongType, nullable = false),
        StructField("note", StringType),
        StructField("any", StringType),
        StructField("list", ArrayType(StringType)),
        StructField("attributes", MapType(StringType, StringType)),
        StructField("either", StringType)
      )))
  }

  // ---- Spark to JSON Schema ----

  private val mapper = new ObjectMapper()

  test("fromSqlType: a draft-07 object, properties in the columns' order, nullable as [T, \"null\"]") {
    val struct = StructType(
      Seq(
        StructField("id", LongType, nullable = false),
        StructField("name", StringType),
        StructField("tags", ArrayType(StringType, containsNull = false)),
        StructField("attrs", MapType(StringType, IntegerType), nullable = false),
        StructField("at", TimestampType),
        StructField("inner", StructType(Seq(StructField("day", DateType, nullable = false))))
      ))
    val schema = JsonSchemas.fromSqlType(struct, "Order")
    assert(
      schema.startsWith("""{"$schema":"http://json-schema.org/draft-07/schema#","title":"Order","type":"object","""))
    assert(
      mapper.readTree(schema) == mapper.readTree(
        """{"$schema": "http://json-schema.org/draft-07/schema#", "title": "Order", "type": "object",
          | "properties": {"id": {"type": "integer"}, "name": {"type": ["string", "null"]},
          |   "tags": {"type": ["array", "null"], "items": {"type": "string"}},
          |   "attrs": {"type": "object", "additionalProperties": {"type": ["integer", "null"]}},
          |   "at": {"type": ["string", "null"], "format": "date-time"},
          |   "inner": {"type": ["object", "null"], "properties": {"day": {"type": "string", "format": "date"}},
          |     "required": ["day"]}},
          | "required": ["id", "attrs"]}""".stripMargin))
    val names = mapper.readTree(schema).get("properties").fieldNames()
    assert(Iterator.continually(names).takeWhile(_.hasNext).map(_.next()).toSeq == struct.fieldNames.toSeq)
  }

  test("fromSqlType: numbers, binary, timestamp_ntz and void as JSON Schema has them") {
    val struct = StructType(
      Seq(
        "b" -> ByteType,
        "s" -> ShortType,
        "i" -> IntegerType,
        "f" -> FloatType,
        "d" -> DoubleType,
        "m" -> DecimalType(10, 2),
        "bin" -> BinaryType,
        "local" -> TimestampNTZType,
        "ok" -> BooleanType,
        "nothing" -> NullType
      ).map { case (name, t) => StructField(name, t, nullable = false) })
    val properties = mapper.readTree(JsonSchemas.fromSqlType(struct, "T")).get("properties")
    def property(name: String): String = properties.get(name).toString
    Seq("b", "s", "i").foreach(n => assert(property(n) == """{"type":"integer"}"""))
    Seq("f", "d", "m").foreach(n => assert(property(n) == """{"type":"number"}"""))
    assert(property("bin") == """{"type":"string","contentEncoding":"base64"}""")
    assert(property("local") == """{"type":"string"}""")
    assert(property("ok") == """{"type":"boolean"}""")
    assert(property("nothing") == """{"type":"null"}""")
  }

  test("fromSqlType: what JSON cannot hold fails naming the column and what to do") {
    def failure(struct: StructType): String =
      intercept[JsonSchemaException](JsonSchemas.fromSqlType(struct, "R")).getMessage
    val keys = failure(StructType(Seq(StructField("m", MapType(IntegerType, StringType)))))
    assert(keys.startsWith("column m: the map's keys are int, and JSON objects have string keys only."), keys)
    val interval = failure(StructType(Seq(StructField("a", ArrayType(CalendarIntervalType)))))
    assert(interval.startsWith("column a[]: Spark type interval has no JSON Schema equivalent. Cast it"), interval)
    val twice = failure(
      StructType(
        Seq(
          StructField(
            "o",
            MapType(StringType, StructType(Seq(StructField("x", LongType), StructField("x", StringType))))))))
    assert(twice.startsWith("column o{}.x: the struct has two columns of that name"), twice)
  }

  test("sqlType of fromSqlType gives the struct back, its types widened as JSON has them") {
    def widened(t: DataType): DataType = t match {
      case ByteType | ShortType | IntegerType => LongType
      case FloatType | _: DecimalType => DoubleType
      case BinaryType | TimestampNTZType | NullType => StringType
      case s: StructType =>
        StructType(
          s.fields.map(f => f.copy(dataType = widened(f.dataType), nullable = f.nullable || f.dataType == NullType)))
      case ArrayType(e, n) => ArrayType(widened(e), n || e == NullType)
      case MapType(k, v, n) => MapType(k, widened(v), n || v == NullType)
      case other => other
    }
    forAll(structType(3)) { struct =>
      val schema = JsonSchemas.fromSqlType(struct, "Row")
      assert(sqlType(schema) == widened(struct))
      assert(!schema.contains("\"additionalProperties\":false"))
    }
  }
}
