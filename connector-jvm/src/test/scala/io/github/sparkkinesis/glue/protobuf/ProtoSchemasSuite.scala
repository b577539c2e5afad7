// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import io.github.sparkkinesis.glue.avro.CatalystValues
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

/**
 * The Spark types of Protobuf messages, as Spark's `from_protobuf` gives them with its default options: what
 * a user sees as the column's type; the message the reader reads; the registry's message index.
 */
class ProtoSchemasSuite extends AnyFunSuite {

  private val shop = ProtoParser.parse("""syntax = "proto3";
      |package shop;
      |import "google/protobuf/timestamp.proto";
      |import "google/protobuf/duration.proto";
      |import "google/protobuf/wrappers.proto";
      |import "google/protobuf/empty.proto";
      |message Order {
      |  int32 a = 1; sint32 b = 2; sfixed32 c = 3; uint32 d = 4; fixed32 e = 5;
      |  int64 f = 6; sint64 g = 7; sfixed64 h = 8; uint64 i = 9; fixed64 j = 10;
      |  float k = 11; double l = 12; bool m = 13; string n = 14; bytes o = 15;
      |  Status status = 16;
      |  repeated Line lines = 17;
      |  map<string, Line> by_sku = 18;
      |  oneof pay { string card = 19; int32 cash = 20; }
      |  google.protobuf.Timestamp at = 21;
      |  google.protobuf.Duration took = 22;
      |  google.protobuf.Int64Value count = 23;
      |  google.protobuf.Empty nothing = 24;
      |  Hollow hollow = 25;
      |  optional int32 maybe = 26;
      |  enum Status { NEW = 0; }
      |  message Line { string sku = 1; repeated int32 qty = 2; }
      |  message Hollow { }
      |}
      |message Other { map<int32, string> my_tags = 1; message A { message B {} } }
      |""".stripMargin)

  test("each scalar, enum, nested, repeated, map, oneof and well-known type as Spark's from_protobuf types it") {
    val line =
      StructType(Seq(StructField("sku", StringType), StructField("qty", ArrayType(IntegerType, containsNull = false))))
    val expected = StructType(
      "abcde".map(c => StructField(c.toString, IntegerType)) ++
        "fghij".map(c => StructField(c.toString, LongType)) ++ Seq(
          StructField("k", FloatType),
          StructField("l", DoubleType),
          StructField("m", BooleanType),
          StructField("n", StringType),
          StructField("o", BinaryType),
          StructField("status", StringType),
          StructField("lines", ArrayType(line, containsNull = false)),
          StructField("by_sku", MapType(StringType, line, valueContainsNull = false)),
          StructField("card", StringType),
          StructField("cash", IntegerType),
          StructField("at", TimestampType),
          StructField("took", DayTimeIntervalType()),
          StructField("count", StructType(Seq(StructField("value", LongType)))),
          StructField("maybe", IntegerType)
        ))
    assert(ProtoSchemas.sqlType(shop, "shop.Order") == expected)
    assert(ProtoSchemas.readerMessage(shop).fullName == "shop.Order")
  }

  test("proto2: required fields are not nullable; repeated and maps are") {
    val file = ProtoParser.parse(
      """message M { required string id = 1; optional int32 n = 2; repeated int64 r = 3; map<string, bool> m = 4; }""")
    assert(
      ProtoSchemas.sqlType(file, "M") == StructType(Seq(
        StructField("id", StringType, nullable = false),
        StructField("n", IntegerType),
        StructField("r", ArrayType(LongType, containsNull = false)),
        StructField("m", MapType(StringType, BooleanType, valueContainsNull = false))
      )))
  }

  test("a recursive message is refused, naming the path where it recurs") {
    val file = ProtoParser.parse("""syntax = "proto3";
        |message Node { string name = 1; repeated Child children = 2; }
        |message Child { Node node = 1; }""".stripMargin)
    val message = intercept[ProtoSchemaException](ProtoSchemas.sqlType(file, "Node")).getMessage
    assert(message.contains("message Node contains itself (at Node.children[].node)"), message)
    assert(message.contains("Register a reader schema without the recursion"))
  }

  test("messages that each hold the next one twice are refused 20 deep, before their type is built; 8 deep read") {
    // L0 holds two L1s, each L1 two L2s, ...: 2^depth copies of the last message in Spark's type.
    def doubling(depth: Int): ProtoFile = ProtoParser.parse(
      ((0 until depth).map(i => s"message L$i { L${i + 1} a = 1; L${i + 1} b = 2; }") :+
        s"message L$depth { int32 x = 1; }").mkString("syntax = \"proto3\";\n", "\n", ""))
    val refused = intercept[ProtoSchemaException](ProtoSchemas.sqlType(doubling(20), "L0")).getMessage
    assert(
      refused == "The .proto schema's message L0 unfolds into a Spark type of more than 100,000 fields and " +
        "values, as its messages are repeated in full at every place they are used. Register a schema whose " +
        "types nest fewer times, or one that keeps the deeper parts as bytes or JSON text.")
    assert(CatalystValues.leaves(ProtoSchemas.sqlType(doubling(8), "L0")) == 256)
  }

  test("a file without messages has no reader message") {
    val message = intercept[ProtoSchemaException](
      ProtoSchemas.readerMessage(ProtoParser.parse("syntax = \"proto3\"; enum E { A = 0; }"))).getMessage
    assert(message.contains("declares no message"))
  }

  test("the registry's message index: every message, nested and map entries too, by full name") {
    assert(
      ProtoSchemas.messageIndex(shop) == IndexedSeq(
        "shop.Order",
        "shop.Order.BySkuEntry",
        "shop.Order.Hollow",
        "shop.Order.Line",
        "shop.Other",
        "shop.Other.A",
        "shop.Other.A.B",
        "shop.Other.MyTagsEntry"))
    // protoc's map entry names: each part after an underscore capitalised, the rest kept
    assert(ProtoSchemas.mapEntryName("my_tags") == "MyTagsEntry")
    assert(ProtoSchemas.mapEntryName("URLs_by_id") == "URLsById" + "Entry")
    assert(ProtoSchemas.mapEntryName("x") == "XEntry")
  }

  test("the .proto file of a struct: a proto3 message of its columns, nested messages, well-known imports") {
    val struct = StructType.fromDDL(
      "id bigint not null, item string, qty smallint, at timestamp, took interval day to second, " +
        "lines array<struct<sku: string not null, tags: array<string>>>, stock map<string, struct<n: int>>, " +
        "address struct<city: string>, flags map<int, boolean>, stock_entry struct<x: int>, Order struct<y: int>")
    val text = ProtoSchemas.fromSqlType(struct, "shop.Order")
    assert(
      text ==
        """syntax = "proto3";
          |package shop;
          |
          |import "google/protobuf/duration.proto";
          |import "google/protobuf/timestamp.proto";
          |
          |message Order {
          |  int64 id = 1;
          |  optional string item = 2;
          |  optional int32 qty = 3;
          |  google.protobuf.Timestamp at = 4;
          |  google.protobuf.Duration took = 5;
          |  repeated Lines lines = 6;
          |  map<string, Stock> stock = 7;
          |  Address address = 8;
          |  map<int32, bool> flags = 9;
          |  StockEntry2 stock_entry = 10;
          |  Order2 Order = 11;
          |
          |  message Lines {
          |    string sku = 1;
          |    repeated string tags = 2;
          |  }
          |
          |  message Stock {
          |    optional int32 n = 1;
          |  }
          |
          |  message Address {
          |    optional string city = 1;
          |  }
          |
          |  message StockEntry2 {
          |    optional int32 x = 1;
          |  }
          |
          |  message Order2 {
          |    optional int32 y = 1;
          |  }
          |}
          |""".stripMargin)
    val file = ProtoParser.parse(text)
    assert(ProtoSchemas.sqlType(file, "shop.Order") == ProtoValues.readBack(struct))
    assert(ProtoSchemas.messageIndex(file).head == "shop.Order")
    // Without a package; a name that would hide google.protobuf from a relative name
    assert(
      ProtoSchemas.fromSqlType(StructType.fromDDL("id int"), "Row").startsWith("syntax = \"proto3\";\n\nmessage Row {"))
    val google = ProtoSchemas.fromSqlType(StructType.fromDDL("at timestamp"), "google")
    assert(google.contains(".google.protobuf.Timestamp at = 1;"))
    assert(ProtoSchemas.sqlType(ProtoParser.parse(google), "google") == StructType.fromDDL("at timestamp"))
  }

  test("a struct with no Protobuf equivalent is refused, naming the column and what to cast it to") {
    val cases = Seq(
      "price decimal(10,2)" -> ("column price: Spark type decimal(10,2) has no Protobuf type that reads back as a " +
        "decimal. Cast it to double, or to string to keep every digit."),
      "day date" -> "column day: Spark type date has no Protobuf type that reads back as a date. Cast it to timestamp",
      "at timestamp_ntz" -> "column at: Spark type timestamp_ntz has no Protobuf type that reads back as it",
      "took interval hour to second" -> ("column took: Spark type interval hour to second has no Protobuf type " +
        "that reads back as it (a google.protobuf.Duration reads as interval day to second). Cast it to interval " +
        "day to second."),
      "age interval year to month" -> "column age: Spark type interval year to month has no Protobuf type",
      "nothing void" -> "column nothing: Spark type void holds nothing but null",
      "o struct<lines: array<array<int>>>" -> ("column o.lines[]: Protobuf nests repeated fields and maps only in " +
        "messages, so array<int> has no Protobuf type as an array's element or a map's value. Wrap it in a struct"),
      "m map<string, map<string, int>>" -> "column m{}: Protobuf nests repeated fields and maps only in messages",
      "m map<double, int>" -> ("column m: the map's keys are double, and Protobuf keys a map by string, int, bigint " +
        "or boolean alone. Cast the keys to string (transform_keys)."),
      "s struct<>" -> "column s: a struct of no columns, which Protobuf reads back as nothing",
      "`order id` int" -> ("column order id: the name is no Protobuf field name (letters, digits and _, not " +
        "starting with a digit). Rename the column (alias)."),
      "item_id int, itemId int" -> ("column item_id: it and itemId have names that differ only in case or " +
        "underscores, which protoc refuses in a proto3 message (their JSON names clash). Rename one of them."),
      "a int, a string" -> "column a: the struct has two columns of that name."
    )
    cases.foreach { case (ddl, expected) =>
      val problem = intercept[ProtoSchemaException](ProtoSchemas.fromSqlType(StructType.fromDDL(ddl), "Row")).getMessage
      assert(problem.startsWith(expected), s"$ddl: $problem")
    }
    assert(
      intercept[ProtoSchemaException](ProtoSchemas.fromSqlType(StructType(Nil), "Row")).getMessage ==
        "the struct: a struct of no columns, which Protobuf reads back as nothing (an empty message is left out). " +
        "Drop it, or give it a column.")
    assert(
      intercept[ProtoSchemaException](ProtoSchemas.fromSqlType(StructType.fromDDL("a int"), "shop.9Row")).getMessage
        .startsWith("The message name shop.9Row is no Protobuf name"))
  }

  test("the message records are read and written as: the option messageName's, by full or simple name") {
    assert(ProtoSchemas.recordMessage(shop, None).fullName == "shop.Order")
    assert(ProtoSchemas.recordMessage(shop, Some("shop.Other")).fullName == "shop.Other")
    assert(ProtoSchemas.recordMessage(shop, Some("Other")).fullName == "shop.Other")
    assert(ProtoSchemas.recordMessage(shop, Some("shop.Order.Line")).fullName == "shop.Order.Line")
    assert(ProtoSchemas.recordMessage(shop, Some("Line")).fullName == "shop.Order.Line")
    val missing = intercept[ProtoSchemaException](ProtoSchemas.recordMessage(shop, Some("Refund"))).getMessage
    assert(
      missing == "the option messageName is Refund, and the .proto file has no message of that name: its messages " +
        "are shop.Order, shop.Order.Line, shop.Order.Hollow, shop.Other, shop.Other.A, shop.Other.A.B. Name one of " +
        "them, by its full name or by its name alone when no other message has it")
    val twice = ProtoParser.parse("syntax = \"proto3\"; message A { message X {} } message B { message X {} }")
    assert(
      intercept[ProtoSchemaException](ProtoSchemas.recordMessage(twice, Some("X"))).getMessage ==
        "the option messageName is X, which names 2 messages of the .proto file (A.X, B.X). Give the full name of one")
  }
}
