// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

/**
 * The `.proto` files the Protobuf codec's tests share, and the records Python's protobuf (7.36, with protoc
 * from grpcio-tools 1.85) wrote of them: `python -m grpc_tools.protoc -I. --python_out=. <file>.proto`, the
 * message set as each comment shows, `SerializeToString().hex()`.
 */
object ProtoSamples {

  val shopText =
    """syntax = "proto3";
      |package shop;
      |import "google/protobuf/timestamp.proto";
      |import "google/protobuf/duration.proto";
      |import "google/protobuf/wrappers.proto";
      |
      |message Order {
      |  int64 id = 1;
      |  string item = 2;
      |  sint32 delta = 3;
      |  uint32 big = 4;
      |  fixed64 f64 = 5;
      |  double price = 6;
      |  float ratio = 7;
      |  bool paid = 8;
      |  bytes blob = 9;
      |  Status status = 10;
      |  repeated int32 counts = 11;
      |  repeated string tags = 12;
      |  map<string, int64> stock = 13;
      |  Line line = 14;
      |  repeated Line lines = 15;
      |  oneof pay { string card = 16; int32 cash = 17; }
      |  google.protobuf.Timestamp at = 18;
      |  google.protobuf.Duration took = 19;
      |  google.protobuf.StringValue note = 20;
      |  optional int32 maybe = 21;
      |  enum Status { NEW = 0; PAID = 1; SHIPPED = 2; }
      |  message Line { string sku = 1; int32 qty = 2; }
      |}
      |message Other { string x = 1; }
      |""".stripMargin

  val legacyText =
    """syntax = "proto2";
      |package legacy;
      |message Reading {
      |  required int64 id = 1;
      |  optional int32 level = 2 [default = 7];
      |  optional Kind kind = 3;
      |  repeated sint64 deltas = 4 [packed = true];
      |  repeated fixed32 raw = 5;
      |  enum Kind { A = 1; B = 2; }
      |}
      |""".stripMargin

  val shop: ProtoFile = ProtoParser.parse(shopText)
  val legacy: ProtoFile = ProtoParser.parse(legacyText)

  // Order(id=-5, item="pomme é", delta=-3, big=4000000000, f64=2**64-1, price=2.5, ratio=0.25, paid=True,
  //   blob=b"\x00\xff", status=SHIPPED, counts=[1, -1, 300], tags=["a", "b"], stock={"x": 3},
  //   line=Line(sku="s1", qty=2), lines=[Line(sku="s2"), Line(qty=0)], cash=0, maybe=0,
  //   at=(1764300000 s, 123456789 ns), took=(-2 s, -500000000 ns), note=StringValue(""))
  val shopOrderHex: String =
    "08fbffffffffffffffff011208706f6d6d6520c3a918052080d0acf30e29ffffffffffffffff3100000000000004403d000080" +
      "3e40014a0200ff50025a0d01ffffffffffffffffff01ac026201616201626a050a0178100372060a02733110027a040a02" +
      "73327a0088010092010b08e0a9a4c90610959aef3a9a011608feffffffffffffffff011080b6ca91feffffffff01a20100" +
      "a80100"

  // The same Order, its timestamp at=(1764300000 s, 123456000 ns): microseconds, as Spark holds it.
  val shopOrderMicrosHex: String =
    "08fbffffffffffffffff011208706f6d6d6520c3a918052080d0acf30e29ffffffffffffffff3100000000000004403d0000" +
      "803e40014a0200ff50025a0d01ffffffffffffffffff01ac026201616201626a050a0178100372060a02733110027a040a02" +
      "73327a0088010092010b08e0a9a4c906108094ef3a9a011608feffffffffffffffff011080b6ca91feffffffff01a20100a8" +
      "0100"

  // Reading(id=9, kind=B, deltas=[-1, 1, -64], raw=[7, 4294967295])
  val legacyReadingHex: String = "08091802220301027f2d070000002dffffffff"

  /** What the shop's and legacy's samples leave out: every encoding's corner (the encoder's tests). */
  val edgeText =
    """syntax = "proto3";
      |package ex;
      |import "google/protobuf/timestamp.proto";
      |import "google/protobuf/duration.proto";
      |message Edge {
      |  int32 neg = 1;
      |  sint64 zz = 2;
      |  sfixed32 sf = 3;
      |  repeated int32 unpacked = 4 [packed = false];
      |  repeated double ds = 5;
      |  repeated bool flags = 6;
      |  repeated Kind kinds = 7;
      |  map<int32, string> names = 8;
      |  map<bool, Inner> inners = 9;
      |  optional string maybe = 10;
      |  oneof choice { Inner inner = 11; int64 count = 12; }
      |  google.protobuf.Timestamp before = 13;
      |  google.protobuf.Duration back = 14;
      |  string long_text = 15;
      |  Inner big = 16;
      |  repeated sint32 szs = 17;
      |  uint64 u = 18;
      |  float f = 19;
      |  enum Kind { K0 = 0; K1 = 1; KM = -1; }
      |  message Inner { string s = 1; repeated int64 n = 2; }
      |}
      |""".stripMargin

  val edge: ProtoFile = ProtoParser.parse(edgeText)

  // Edge(neg=-2, zz=-3, sf=-4, unpacked=[0, 1, -1], ds=[0.0, -1.5], flags=[True, False], kinds=[0, 1, -1],
  //   names={0: "", -7: "x"}, inners={False: Inner(), True: Inner(n=[1])}, maybe="", count=0,
  //   before=(-2 s, 999999000 ns), back=(-1 s, -500000000 ns), long_text="é" * 100,
  //   big=Inner(s="a" * 200, n=[300, -1]), szs=[-1, 1, -2**31], u=2**64-1, f=-0.0)
  // Python's maps wrote names' -7 first and inners' True first.
  val edgeHex: String =
    "08feffffffffffffffff0110051dfcffffff2000200120ffffffffffffffffff012a100000000000000000000000000000f8" +
      "bf320201003a0c0001ffffffffffffffffff01420e08f9ffffffffffffffff011201784204080012004a0708011203120101" +
      "4a0408001200520060006a1108feffffffffffffffff0110988cebdc03721608ffffffffffffffffff011080b6ca91feffff" +
      "ffff017ac801c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9" +
      "c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9" +
      "c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9" +
      "c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9" +
      "c3a9c3a9c3a98201d9010ac80161616161616161616161616161616161616161616161616161616161616161616161616161" +
      "6161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161" +
      "6161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161" +
      "6161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161" +
      "61616161616161616161616161120cac02ffffffffffffffffff018a01070102ffffffff0f9001ffffffffffffffffff019d" +
      "0100000080"
}
