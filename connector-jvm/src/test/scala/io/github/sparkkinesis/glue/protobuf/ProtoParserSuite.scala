// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import org.scalatest.funsuite.AnyFunSuite

/**
 * `.proto` files as producers register them, and what the parser reads of them: each construct a record's
 * type depends on, what it ignores, and the message naming line:column and the remedy for what it refuses.
 */
class ProtoParserSuite extends AnyFunSuite {

  private def failure(text: String): String = intercept[ProtoSchemaException](ProtoParser.parse(text)).getMessage

  test("proto3: package, options and comments ignored, nested messages and enums, labels and presence") {
    val file = ProtoParser.parse("""// The shop's orders.
        |syntax = "proto3";
        |package shop.v1;
        |option java_package = "com.example.shop"; /* a file option */
        |option (my.ext).deep = { a: 1 b: "}" };
        |message Order {
        |  option deprecated = true;
        |  int64 id = 1;
        |  optional string note = 2 [json_name = "n", deprecated = true];
        |  repeated Item items = 3 [packed = false];
        |  Status status = 4;
        |  message Item { string sku = 1; repeated int32 counts = 2 [packed = true]; }
        |  enum Status { option allow_alias = true; NEW = 0; STARTED = 1; RUNNING = 1; reserved 5 to 9, 20; }
        |  reserved 10, 12 to 14;
        |  reserved "old";
        |  ;
        |}
        |service Shop { rpc Get (Order) returns (Order) { option (x) = true; } }
        |""".stripMargin)
    assert(file.syntax == "proto3")
    assert(file.packageName == "shop.v1")
    val order = file.messages.head
    assert(order.fullName == "shop.v1.Order")
    assert(
      order.fields.map(f => (f.name, f.number, f.label, f.implicitPresence)) == Seq(
        ("id", 1, "", true),
        ("note", 2, "optional", false),
        ("items", 3, "repeated", false),
        ("status", 4, "", true)))
    assert(
      order.fields.map(_.fieldType) == Seq(
        ProtoScalar("int64"),
        ProtoScalar("string"),
        ProtoMessageRef("shop.v1.Order.Item"),
        ProtoEnumRef("shop.v1.Order.Status")))
    assert(order.messages.map(_.fullName) == Seq("shop.v1.Order.Item"))
    val status = file.enumType("shop.v1.Order.Status")
    assert(status.values == Seq("NEW" -> 0, "STARTED" -> 1, "RUNNING" -> 1))
    assert(status.names(1) == "STARTED" && !status.closed)
    assert(file.allMessages.map(_.name) == Seq("Order", "Item"))
  }

  test("proto2: labels, declared defaults of each type, closed enums, extensions and extend ignored") {
    val file = ProtoParser.parse("""package p;
        |enum Color { RED = 1; GREEN = 2; }
        |message M {
        |  required int32 a = 1 [default = -0x10];
        |  optional uint32 b = 2 [default = 4294967295];
        |  optional sint64 c = 3 [default = 017];
        |  optional double d = 4 [default = -inf];
        |  optional float e = 5 [default = 1.5e3];
        |  optional bool f = 6 [default = true];
        |  optional string g = 7 [default = "a\tb\x41\101""".stripMargin + "\\u00e9" + """" 'z'];
        |  optional bytes h = 8 [default = "\377\000"];
        |  optional Color i = 9 [default = GREEN];
        |  optional .p.Color j = 10;
        |  repeated int64 k = 11 [packed = true];
        |  extensions 100 to max;
        |  extend Other { optional int32 x = 100; }
        |}
        |extend M { optional string y = 101; }
        |""".stripMargin)
    assert(file.syntax == "proto2")
    val m = file.message("p.M")
    val defaults = m.fields.map(_.default.orNull)
    assert(defaults.take(7) == Seq(-16, -1, 15L, Double.NegativeInfinity, 1500f, true, "a\tbAA\u00e9z"))
    assert(defaults(7).asInstanceOf[Array[Byte]].toSeq == Seq(-1, 0).map(_.toByte))
    assert(defaults(8) == "GREEN" && defaults(9) == null)
    assert(m.fields.map(_.label).distinct == Seq("required", "optional", "repeated"))
    assert(m.fields.forall(!_.implicitPresence))
    assert(file.enumType("p.Color").closed)
    assert(m.fields(9).fieldType == ProtoEnumRef("p.Color"))
  }

  test("oneof members, maps, well-known imports, and names resolved innermost scope first") {
    val file = ProtoParser.parse("""syntax = "proto3";
        |import "google/protobuf/timestamp.proto";
        |import public "google/protobuf/wrappers.proto";
        |package a.b;
        |message Thing { int32 x = 1; }
        |message Outer {
        |  message Thing { string y = 1; }
        |  Thing inner = 1;
        |  b.Thing outer = 2;
        |  .a.b.Thing full = 3;
        |  oneof choice { string text = 4; Thing other = 5; }
        |  map<string, Thing> things = 6;
        |  map<int64, google.protobuf.Int32Value> counts = 7;
        |  google.protobuf.Timestamp at = 8;
        |}
        |""".stripMargin)
    val fields = file.message("a.b.Outer").fields
    assert(
      fields.map(_.fieldType) == Seq(
        ProtoMessageRef("a.b.Outer.Thing"),
        ProtoMessageRef("a.b.Thing"),
        ProtoMessageRef("a.b.Thing"),
        ProtoScalar("string"),
        ProtoMessageRef("a.b.Outer.Thing"),
        ProtoMap(ProtoScalar("string"), ProtoMessageRef("a.b.Outer.Thing")),
        ProtoMap(ProtoScalar("int64"), ProtoMessageRef("google.protobuf.Int32Value")),
        ProtoMessageRef("google.protobuf.Timestamp")
      ))
    assert(fields.map(_.oneof) == Seq(None, None, None, Some("choice"), Some("choice"), None, None, None))
    assert(fields.map(_.label) == Seq("", "", "", "", "", "repeated", "repeated", ""))
    assert(fields(3).implicitPresence == false)
    assert(file.messages.map(_.name) == Seq("Thing", "Outer"))
  }

  test("packed as protobuf-java writes it: proto3 repeated scalars and enums unless told not, proto2 only when told") {
    def packed(text: String): Map[String, Boolean] =
      ProtoParser.parse(text).messages.head.fields.map(f => f.name -> f.packed).toMap
    assert(
      packed("""syntax = "proto3"; message M { repeated int32 a = 1; repeated int32 b = 2 [packed = false];
          |repeated string c = 3; repeated bytes d = 4; repeated E e = 5; repeated M m = 6; int32 f = 7;
          |map<int32, int32> g = 8; repeated double h = 9 [deprecated = true]; enum E { Z = 0; } }""".stripMargin) ==
        Map(
          "a" -> true,
          "b" -> false,
          "c" -> false,
          "d" -> false,
          "e" -> true,
          "m" -> false,
          "f" -> false,
          "g" -> false,
          "h" -> true))
    assert(
      packed("""message M { repeated int32 a = 1; repeated sint64 b = 2 [packed = true];
          |repeated bool c = 3 [packed=false]; optional int32 d = 4; }""".stripMargin) ==
        Map("a" -> false, "b" -> true, "c" -> false, "d" -> false))
  }

  test("refused, naming line:column and what to do") {
    val cases = Seq(
      "syntax = \"proto2\";\nmessage M {\n  optional group G = 1 { optional int32 a = 2; }\n}" ->
        Seq("line 3:12", "M declares a group", "declare a message and a field of that type instead"),
      "syntax = \"proto3\";\nimport \"other.proto\";" -> Seq(
        "line 2:8",
        "imports \"other.proto\"",
        "declare the imported types in this file"),
      "edition = \"2023\";" -> Seq("line 1:1", "edition", "syntax = \"proto3\""),
      "syntax = \"proto3\";\nmessage M { Missing m = 1; }" -> Seq("line 2:13", "Missing names no message or enum"),
      "syntax = \"proto3\";\nmessage M { google.protobuf.Timestamp t = 1; }" ->
        Seq("line 2:13", "does not import", "google/protobuf/timestamp.proto"),
      "syntax = \"proto3\";\nmessage M { int32 a = 1; string b = 1; }" -> Seq("fields a and b of M have the number 1"),
      "syntax = \"proto3\";\nmessage M { int32 a = 1; string a = 2; }" -> Seq("two fields named a"),
      "syntax = \"proto3\";\nmessage M { int32 a = 0; }" -> Seq("line 2:23", "number it from 1 to 536870911"),
      "message M { int32 a = 1; }" -> Seq("line 1:13", "a proto2 field has no label"),
      "syntax = \"proto3\";\nmessage M { required int32 a = 1; }" -> Seq("proto3 has no required fields"),
      "syntax = \"proto3\";\nmessage M { int32 a = 1 [default = 3]; }" -> Seq(
        "proto3 fields have no declared defaults"),
      "syntax = \"proto3\";\nenum E { A = 1; }" -> Seq("the first value of proto3 enum E is not 0"),
      "syntax = \"proto3\";\nenum E { A = 0; B = 0; }" -> Seq("gives the number 0 to two values", "allow_alias"),
      "syntax = \"proto3\";\nmessage M { map<double, string> m = 1; }" -> Seq("line 2:17", "key is of type double"),
      "message M { optional int32 a = 1 [default = \"x\"]; }" -> Seq("the default of field a is no integer"),
      "message M { optional bool a = 1 [default = 1]; }" -> Seq("no boolean"),
      "syntax = \"proto3\";\nmessage M { string a = 1; /* open" -> Seq("line 2:27", "comment is not closed"),
      "syntax = \"proto3\";\nmessage M { string a = 1;" -> Seq("message M is not closed"),
      "syntax = \"proto3\";\nmessage M { string a = 1 [default = \"ab]; }\n}" -> Seq(
        "string literal runs to the end of its line"),
      "syntax = \"proto4\";" -> Seq("the syntax is \"proto4\""),
      "syntax = \"proto3\";\nmessage M { int32 a = 1 }" -> Seq("line 2:25", "expected ';' after the field, found '}'")
    )
    cases.foreach { case (text, expected) =>
      val message = failure(text)
      assert(message.startsWith("The .proto schema cannot be read at line"), message)
      expected.foreach(e => assert(message.contains(e), s"'$e' not in: $message"))
    }
  }
}
