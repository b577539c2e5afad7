// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.glue.avro.CatalystValues._
import io.github.sparkkinesis.testing.SeededProperties
import org.apache.avro.{LogicalTypes, Schema}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

/**
 * The Spark type a registry's Avro schema gives a column (Spark's own mapping), and the Avro schema a struct
 * column is registered with.
 */
class AvroSchemasSuite extends AnyFunSuite with SeededProperties {

  private def sql(json: String): DataType = AvroSchemas.sqlType(parse(json))

  test("primitive types map as Spark maps them") {
    assert(sql(""""null"""") == NullType)
    assert(sql(""""boolean"""") == BooleanType)
    assert(sql(""""int"""") == IntegerType)
    assert(sql(""""long"""") == LongType)
    assert(sql(""""float"""") == FloatType)
    assert(sql(""""double"""") == DoubleType)
    assert(sql(""""bytes"""") == BinaryType)
    assert(sql(""""string"""") == StringType)
    assert(sql("""{"type":"fixed","name":"F","size":4}""") == BinaryType)
    assert(sql("""{"type":"enum","name":"E","symbols":["A","B"]}""") == StringType)
  }

  test("logical types: dates, timestamps with and without a time zone, decimals; others as their base type") {
    assert(sql("""{"type":"int","logicalType":"date"}""") == DateType)
    assert(sql("""{"type":"long","logicalType":"timestamp-millis"}""") == TimestampType)
    assert(sql("""{"type":"long","logicalType":"timestamp-micros"}""") == TimestampType)
    assert(sql("""{"type":"long","logicalType":"local-timestamp-millis"}""") == TimestampNTZType)
    assert(sql("""{"type":"long","logicalType":"local-timestamp-micros"}""") == TimestampNTZType)
    assert(sql("""{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}""") == DecimalType(10, 2))
    assert(
      sql("""{"type":"fixed","name":"D","size":16,"logicalType":"decimal","precision":38,"scale":0}""") ==
        DecimalType(38, 0))
    assert(sql("""{"type":"int","logicalType":"time-millis"}""") == IntegerType)
    assert(sql("""{"type":"long","logicalType":"time-micros"}""") == LongType)
    assert(sql("""{"type":"long","logicalType":"timestamp-nanos"}""") == LongType)
    assert(sql("""{"type":"string","logicalType":"uuid"}""") == StringType)
    // A decimal whose precision its fixed cannot hold is no decimal to Avro: binary.
    assert(sql("""{"type":"fixed","name":"D","size":2,"logicalType":"decimal","precision":10}""") == BinaryType)
  }

  test("a decimal of more digits than Spark's 38 fails naming the field") {
    val e = intercept[AvroConversionException] {
      AvroSchemas.sqlType(
        record("R", """{"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":40,"scale":2}}"""))
    }
    assert(e.getMessage.contains("Avro field price") && e.getMessage.contains("decimal(40, 2)"), e.getMessage)
  }

  test("unions: null makes a value nullable; int and long widen to long, float and double to double") {
    val schema = record(
      "R",
      """{"name":"a","type":["null","string"]}""",
      """{"name":"b","type":["string","null"]}""",
      """{"name":"c","type":["int","long"]}""",
      """{"name":"d","type":["null","long","int"]}""",
      """{"name":"e","type":["float","double"]}""",
      """{"name":"f","type":["double","null","float"]}""",
      """{"name":"g","type":["string"]}""",
      """{"name":"h","type":"string"}""",
      """{"name":"i","type":["null"]}"""
    )
    assert(
      AvroSchemas.sqlType(schema) == StructType(Seq(
        StructField("a", StringType, nullable = true),
        StructField("b", StringType, nullable = true),
        StructField("c", LongType, nullable = false),
        StructField("d", LongType, nullable = true),
        StructField("e", DoubleType, nullable = false),
        StructField("f", DoubleType, nullable = true),
        StructField("g", StringType, nullable = false),
        StructField("h", StringType, nullable = false),
        StructField("i", NullType, nullable = true)
      )))
  }

  test("other unions become a struct of member0, member1, ..., each nullable, null left out") {
    assert(
      sql("""["int","string",{"type":"record","name":"P","fields":[{"name":"x","type":"long"}]}]""") ==
        StructType(
          Seq(
            StructField("member0", IntegerType),
            StructField("member1", StringType),
            StructField("member2", StructType(Seq(StructField("x", LongType, nullable = false)))))))
    val nullable = AvroSchemas.sqlType(record("R", """{"name":"u","type":["null","int","string"]}"""))
    assert(
      nullable == StructType(
        Seq(
          StructField(
            "u",
            StructType(Seq(StructField("member0", IntegerType), StructField("member1", StringType))),
            nullable = true))))
  }

  test("records, arrays and maps nest, with nullable elements and values from their unions") {
    val schema = record(
      "Order",
      """{"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[
        {"name":"sku","type":"string"},{"name":"price","type":["null","double"]}]}}}""",
      """{"name":"tags","type":{"type":"map","values":["null","string"]}}""",
      """{"name":"matrix","type":{"type":"array","items":{"type":"array","items":"int"}}}""",
      """{"name":"byId","type":["null",{"type":"map","values":"Item"}],"default":null}"""
    )
    val item = StructType(Seq(StructField("sku", StringType, nullable = false), StructField("price", DoubleType)))
    assert(
      AvroSchemas.sqlType(schema) == StructType(Seq(
        StructField("items", ArrayType(item, containsNull = false), nullable = false),
        StructField("tags", MapType(StringType, StringType, valueContainsNull = true), nullable = false),
        StructField("matrix", ArrayType(ArrayType(IntegerType, false), false), nullable = false),
        StructField("byId", MapType(StringType, item, valueContainsNull = false), nullable = true)
      )))
  }

  test("a recursive record fails naming the record and the field where it nests itself") {
    val linked = parse("""{"type":"record","name":"Node","namespace":"ex","fields":[
      {"name":"value","type":"int"},{"name":"next","type":["null","Node"]}]}""")
    val e = intercept[AvroConversionException](AvroSchemas.sqlType(linked))
    assert(e.getMessage.contains("ex.Node") && e.getMessage.contains("Avro field next"), e.getMessage)

    val tree = record(
      "Doc",
      """{"name":"root","type":{"type":"record","name":"Tree","fields":[
        {"name":"children","type":{"type":"array","items":"Tree"}}]}}""")
    val deep = intercept[AvroConversionException](AvroSchemas.sqlType(tree))
    assert(deep.getMessage.contains("Avro field root.children[]") && deep.getMessage.contains("Tree"), deep.getMessage)
  }

  test("the same record used twice, not inside itself, is no recursion") {
    val schema = record(
      "R",
      """{"name":"a","type":{"type":"record","name":"P","fields":[{"name":"x","type":"int"}]}}""",
      """{"name":"b","type":"P"}""")
    val p = StructType(Seq(StructField("x", IntegerType, nullable = false)))
    assert(AvroSchemas.sqlType(schema) == StructType(Seq(StructField("a", p, false), StructField("b", p, false))))
  }

  test("records that each use the next one twice are refused 20 deep, before their type is built; 8 deep read") {
    // L0 holds two L1s, each L1 two L2s, ...: 2^depth copies of the last record in Spark's type.
    def doubling(depth: Int): Schema = {
      def level(i: Int): String =
        if (i == depth) s"""{"type":"record","name":"L$i","fields":[{"name":"x","type":"int"}]}"""
        else
          s"""{"type":"record","name":"L$i","fields":[{"name":"a","type":${level(i + 1)}},""" +
            s"""{"name":"b","type":"L${i + 1}"}]}"""
      parse(level(0))
    }
    val refused = intercept[AvroConversionException](AvroSchemas.sqlType(doubling(20))).getMessage
    assert(
      refused == "The Avro schema unfolds into a Spark type of more than 100,000 fields and values, as its named " +
        "records are repeated in full at every place they are used. Register a schema whose types nest fewer " +
        "times, or one that keeps the deeper parts as bytes or JSON text.")
    assert(CatalystValues.leaves(AvroSchemas.sqlType(doubling(8))) == 256)
  }

  // ---- Spark to Avro ----

  test("fromSqlType: a nullable column is [\"null\", T] with the default null; any other has no default") {
    val struct = StructType(
      Seq(
        StructField("id", LongType, nullable = false),
        StructField("name", StringType, nullable = true),
        StructField("nothing", NullType, nullable = true)))
    val schema = AvroSchemas.fromSqlType(struct, "Event", "com.example")
    assert(schema.getFullName == "com.example.Event")
    val id = schema.getField("id")
    assert(id.schema == Schema.create(Schema.Type.LONG) && !id.hasDefaultValue)
    val name = schema.getField("name")
    assert(name.schema.getTypes.asScala.map(_.getType) == Seq(Schema.Type.NULL, Schema.Type.STRING))
    assert(name.hasDefaultValue && name.defaultVal == org.apache.avro.JsonProperties.NULL_VALUE)
    assert(schema.getField("nothing").schema == Schema.create(Schema.Type.NULL))
    // Parses back as a valid schema: Avro checked the defaults against the unions.
    assert(parse(schema.toString) == schema)
  }

  test("fromSqlType: types and names as Spark's toAvroType gives them") {
    val struct = StructType(
      Seq(
        StructField("b", ByteType, false),
        StructField("s", ShortType, false),
        StructField("d", DateType, false),
        StructField("t", TimestampType, false),
        StructField("n", TimestampNTZType, false),
        StructField("price", DecimalType(10, 2), false),
        StructField("bin", BinaryType, false),
        StructField("inner", StructType(Seq(StructField("x", FloatType, false))), false),
        StructField("list", ArrayType(StructType(Seq(StructField("y", DoubleType, true))), true), false),
        StructField("m", MapType(StringType, BooleanType, false), false)
      ))
    val schema = AvroSchemas.fromSqlType(struct, "Rec", "ns")
    def field(name: String) = schema.getField(name).schema
    assert(field("b").getType == Schema.Type.INT && field("s").getType == Schema.Type.INT)
    assert(field("d").getLogicalType == LogicalTypes.date())
    assert(field("t").getLogicalType == LogicalTypes.timestampMicros())
    assert(field("n").getLogicalType == LogicalTypes.localTimestampMicros())
    assert(field("price").getType == Schema.Type.FIXED && field("price").getFixedSize == 5)
    assert(field("price").getFullName == "ns.Rec.price.fixed")
    assert(field("price").getLogicalType == LogicalTypes.decimal(10, 2))
    assert(field("bin").getType == Schema.Type.BYTES)
    assert(field("inner").getFullName == "ns.Rec.inner")
    val element = field("list").getElementType
    assert(element.getTypes.asScala.map(_.getType) == Seq(Schema.Type.NULL, Schema.Type.RECORD))
    assert(element.getTypes.get(1).getFullName == "ns.Rec.list")
    assert(field("m").getValueType == Schema.create(Schema.Type.BOOLEAN))
  }

  test("fromSqlType: a decimal's fixed has the fewest bytes for its precision") {
    val sizes = (1 to 38).map(p => p -> AvroSchemas.fixedSize(p)).toMap
    assert(sizes(1) == 1 && sizes(2) == 1 && sizes(3) == 2 && sizes(9) == 4 && sizes(10) == 5)
    assert(sizes(18) == 8 && sizes(19) == 9 && sizes(38) == 16)
    sizes.foreach { case (p, n) =>
      assert(BigInt(2).pow(8 * n - 1) > BigInt(10).pow(p) - 1, s"precision $p in $n bytes")
      assert(n == 1 || BigInt(2).pow(8 * (n - 1) - 1) < BigInt(10).pow(p) - 1, s"precision $p in fewer than $n")
    }
  }

  test("fromSqlType: what Avro cannot hold fails naming the column and what to do") {
    def failure(struct: StructType): String =
      intercept[AvroConversionException](AvroSchemas.fromSqlType(struct, "R", "")).getMessage
    val badName = failure(StructType(Seq(StructField("order id", StringType))))
    assert(badName.contains("column order id") && badName.contains("Rename"), badName)
    val nested =
      failure(StructType(Seq(StructField("a", ArrayType(StructType(Seq(StructField("prix €", StringType))))))))
    assert(nested.contains("column a[].prix €"), nested)
    val keys = failure(StructType(Seq(StructField("m", MapType(IntegerType, StringType)))))
    assert(keys.contains("column m") && keys.contains("string keys"), keys)
    val interval = failure(StructType(Seq(StructField("i", CalendarIntervalType))))
    assert(interval.contains("column i") && interval.contains("interval"), interval)
    val twice = failure(StructType(Seq(StructField("a", StringType), StructField("a", IntegerType))))
    assert(twice.contains("column a") && twice.contains("two columns"), twice)
    val recordName = intercept[AvroConversionException](AvroSchemas.fromSqlType(StructType(Nil), "1st", ""))
    assert(recordName.getMessage.contains("record name"), recordName.getMessage)
  }

  test("sqlType of fromSqlType gives the struct back, byte and short widened to int") {
    def widened(t: DataType): DataType = t match {
      case ByteType | ShortType => IntegerType
      case s: StructType => StructType(s.fields.map(f => f.copy(dataType = widened(f.dataType))))
      case ArrayType(e, n) => ArrayType(widened(e), n)
      case MapType(k, v, n) => MapType(k, widened(v), n)
      case other => other
    }
    forAll(structType(3)) { struct =>
      val schema = AvroSchemas.fromSqlType(struct, "topLevelRecord", "")
      assert(AvroSchemas.sqlType(schema) == widened(struct))
      assert(parse(schema.toString) == schema, "a schema Avro parses back")
    }
  }
}
