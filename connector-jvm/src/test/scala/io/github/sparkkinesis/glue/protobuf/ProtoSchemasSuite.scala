// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

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
}
