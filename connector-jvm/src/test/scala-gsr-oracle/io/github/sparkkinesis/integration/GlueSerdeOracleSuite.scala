// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.io.File
import java.util.UUID

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import io.github.sparkkinesis.functions.{from_glue_registry, to_glue_registry}
import io.github.sparkkinesis.glue.{GlueFraming, GlueRegistryClient, SchemaVersions}
import io.github.sparkkinesis.testing.{GlueSerdeOracle, GlueServer, SparkStreamingSuite}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{col, expr, lit, struct}
import org.scalatest.funsuite.AnyFunSuite

/**
 * The registry functions against the outside oracle of the registry's formats, AWS' own Java serde
 * (software.amazon.glue:schema-registry-serde, run by tests/gsr-oracle in a JVM of its own, one for the
 * suite), both ways, on a registry on loopback (moto's): records its serializer writes, registering their
 * versions itself, `from_glue_registry` decodes to the values written; rows `to_glue_registry` writes, its
 * deserializer reads back as they were. Avro, JSON Schema and Protobuf; payloads compressed with zlib and not.
 * On the primary line only (build.sbt gives it the serde's class path): every line's jar holds the same code.
 */
class GlueSerdeOracleSuite extends AnyFunSuite with SparkStreamingSuite {

  private val glue = new GlueServer(new File(sys.props.getOrElse("kinesis.test.root", ".")))
  private val (accessKey, secretKey) = ("AKIDGLUESERDEORACLE", "gsr-oracle-secret")
  private var serde: GlueSerdeOracle = _
  private val registry = "interop"
  private val mapper = new ObjectMapper()

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    glue.start()
    SchemaVersions.useClients(GlueRegistryClient.create)
    glue.createRegistry(registry)
    serde = new GlueSerdeOracle(glue.endpoint, glue.region, accessKey, secretKey)
    serde.start()
  }

  override protected def afterAll(): Unit =
    try {
      if (serde != null) serde.stop()
      glue.stop()
    } finally super.afterAll()

  private def options(pairs: (String, String)*): java.util.Map[String, String] =
    (Map("endpoint" -> glue.endpoint, "region" -> glue.region, "awsAccessKey" -> accessKey) ++
      Map("awsSecretKey" -> secretKey) ++ pairs).asJava

  private def records(data: Seq[Array[Byte]]): DataFrame =
    spark.createDataFrame(data.map(Tuple1(_))).toDF("data")

  private def decode(data: Seq[Array[Byte]], schemaName: String): DataFrame =
    records(data).select(from_glue_registry(col("data"), schemaName, registry, options()).as("r")).select("r.*")

  private def encode(rows: DataFrame, schemaName: String, pairs: (String, String)*): Seq[Array[Byte]] =
    rows
      .select(
        to_glue_registry(struct(rows.columns.map(col).toIndexedSeq: _*), schemaName, registry, options(pairs: _*)))
      .collect()
      .map(_.getAs[Array[Byte]](0))
      .toSeq

  private def json(texts: String*): Set[JsonNode] = texts.map(t => mapper.readTree(t)).toSet

  /** The writer version of each record, and whether its payload is compressed, from its header. */
  private def frames(data: Seq[Array[Byte]]): Seq[(UUID, Boolean)] =
    data.map(r => GlueFraming.read(r).fold(problem => fail(problem), f => (f.schemaVersionId, f.compressed)))

  private val orderV1 =
    """{"type": "record", "name": "Order", "namespace": "shop", "fields": [
      |  {"name": "id", "type": "long"}, {"name": "item", "type": "string"}]}""".stripMargin
  private val orderV2 =
    """{"type": "record", "name": "Order", "namespace": "shop", "fields": [
      |  {"name": "id", "type": "long"}, {"name": "item", "type": "string"},
      |  {"name": "price", "type": "double", "default": 0.0}]}""".stripMargin

  test("Avro: records AWS' serializer wrote with two versions, zlib or not, decode to the latest version") {
    val older = serde.serialize(registry, "orders", "AVRO", orderV1, Seq("""{"id": 1, "item": "apple"}""")) ++
      serde.serialize(registry, "orders", "AVRO", orderV1, Seq("""{"id": 2, "item": "plum"}"""), zlib = true)
    val newer = serde.serialize(
      registry,
      "orders",
      "AVRO",
      orderV2,
      Seq("""{"id": 3, "item": "fig", "price": 4.0}""", """{"id": 4, "item": "pear", "price": 2.5}"""),
      zlib = true) ++
      serde.serialize(registry, "orders", "AVRO", orderV2, Seq("""{"id": 5, "item": "kiwi", "price": 0.5}"""))
    val written = frames(older ++ newer)
    assert(written.map(_._1).distinct.size == 2, "the serializer registered a second version")
    assert(written.map(_._2) == Seq(false, true, true, true, false))

    val decoded = decode(older ++ newer, "orders")
    assert(decoded.schema.simpleString == "struct<id:bigint,item:string,price:double>")
    assert(
      decoded.collect().toSet == Set(
        Row(1L, "apple", 0.0),
        Row(2L, "plum", 0.0),
        Row(3L, "fig", 4.0),
        Row(4L, "pear", 2.5),
        Row(5L, "kiwi", 0.5)))
  }

  test("JSON Schema: records AWS' serializer wrote, zlib or not, decode by property name") {
    val schema =
      """{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["id"],
        | "properties": {"id": {"type": "integer"}, "item": {"type": "string"}, "price": {"type": "number"},
        |   "day": {"type": "string", "format": "date"}, "tags": {"type": "array", "items": {"type": "string"}}}}
        |""".stripMargin
    val written =
      serde.serialize(
        registry,
        "events",
        "JSON",
        schema,
        Seq("""{"id": 1, "item": "apple", "price": 1.5, "day": "2026-11-28", "tags": ["red", "ripe"]}""")) ++
        serde.serialize(
          registry,
          "events",
          "JSON",
          schema,
          Seq("""{"tags": [], "id": 2}""", """{"id": 3, "item": "fig", "price": 4}"""),
          zlib = true)
    assert(frames(written).map(_._2) == Seq(false, true, true))

    val decoded = decode(written, "events")
    assert(decoded.schema.simpleString == "struct<id:bigint,item:string,price:double,day:date,tags:array<string>>")
    assert(
      decoded.collect().toSet == Set(
        Row(1L, "apple", 1.5, java.sql.Date.valueOf("2026-11-28"), Seq("red", "ripe")),
        Row(2L, null, null, null, Seq.empty[String]),
        Row(3L, "fig", 4.0, null, null)))
  }

  test("Protobuf: records AWS' serializer wrote, zlib or not, decode by the definition it registered") {
    // Detail sorts before Event: Event's message index in the records is 1.
    val schema =
      """syntax = "proto3";
        |package shop;
        |message Event { int64 id = 1; string name = 2; repeated string tags = 3; Detail detail = 4; Kind kind = 5; }
        |message Detail { double price = 1; bool paid = 2; }
        |enum Kind { KIND_UNSPECIFIED = 0; SALE = 1; REFUND = 2; }
        |""".stripMargin
    val written =
      serde.serialize(
        registry,
        "pb-events",
        "PROTOBUF",
        schema,
        Seq(
          """{"id": 1, "name": "a", "tags": ["x", "y"], "detail": {"price": 1.5, "paid": true}, "kind": "SALE"}""")) ++
        serde.serialize(registry, "pb-events", "PROTOBUF", schema, Seq("""{"id": 2, "kind": "REFUND"}"""), zlib = true)
    assert(frames(written).map(_._2) == Seq(false, true))
    assert(written.head(GlueFraming.HeaderLength) == 1, "Event's message index, after Detail's")

    val decoded = decode(written, "pb-events")
    assert(
      decoded.schema.simpleString ==
        "struct<id:bigint,name:string,tags:array<string>,detail:struct<price:double,paid:boolean>,kind:string>")
    assert(
      decoded.collect().toSet == Set(
        Row(1L, "a", Seq("x", "y"), Row(1.5, true), "SALE"),
        Row(2L, null, Seq.empty[String], null, "REFUND")))
  }

  test("Avro: rows to_glue_registry writes, zlib or not, and with a version it registered, AWS' deserializer reads") {
    val payments =
      """{"type": "record", "name": "Payment", "namespace": "shop", "fields": [
        |  {"name": "id", "type": "long"}, {"name": "item", "type": "string"}, {"name": "price", "type": "double"},
        |  {"name": "note", "type": ["null", "string"], "default": null},
        |  {"name": "tags", "type": {"type": "array", "items": "string"}}]}""".stripMargin
    val version = UUID.fromString(glue.createSchema(registry, "payments", "AVRO", payments))
    val s = spark
    import s.implicits._
    val rows = Seq(
      (1L, "apple", 1.5, Option.empty[String], Seq("red")),
      (2L, "pear", 2.5, Some("ripe"), Seq.empty[String]),
      (3L, "fig", 4.0, Some(""), Seq("a", "b"))).toDF("id", "item", "price", "note", "tags")
    val expected = json(
      """{"id": 1, "item": "apple", "price": 1.5, "note": null, "tags": ["red"]}""",
      """{"id": 2, "item": "pear", "price": 2.5, "note": "ripe", "tags": []}""",
      """{"id": 3, "item": "fig", "price": 4.0, "note": "", "tags": ["a", "b"]}"""
    )

    val plain = encode(rows, "payments")
    val zlib = encode(rows, "payments", "compression" -> "zlib")
    assert(frames(plain).map(_._2).distinct == Seq(false) && frames(zlib).map(_._2).distinct == Seq(true))
    Seq(plain, zlib).foreach { written =>
      val read = serde.deserialize(written)
      assert(read.map(_._1).toSet == Set(version))
      assert(read.map(_._2).toSet == expected)
    }

    // A column the version lacks: the struct's own schema, registered as a new version, is the one the
    // deserializer reads the records with.
    val paid = rows.withColumn("paid", col("id") === 2L)
    val registered = serde.deserialize(encode(paid, "payments", "registerSchema" -> "true"))
    assert(registered.map(_._1).distinct.size == 1 && registered.head._1 != version)
    assert(
      registered.map(_._2).toSet == json(
        """{"id": 1, "item": "apple", "price": 1.5, "note": null, "tags": ["red"], "paid": false}""",
        """{"id": 2, "item": "pear", "price": 2.5, "note": "ripe", "tags": [], "paid": true}""",
        """{"id": 3, "item": "fig", "price": 4.0, "note": "", "tags": ["a", "b"], "paid": false}"""
      ))
  }

  test("JSON Schema: rows to_glue_registry writes, zlib or not, AWS' deserializer reads, valid for the version") {
    val visits =
      """{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["id"],
        | "properties": {"id": {"type": "integer"}, "item": {"type": "string"}, "price": {"type": "number"},
        |   "day": {"type": "string", "format": "date"}, "tags": {"type": "array", "items": {"type": "string"}}}}
        |""".stripMargin
    val version = UUID.fromString(glue.createSchema(registry, "visits", "JSON", visits))
    val s = spark
    import s.implicits._
    val rows = Seq((1L, "apple", 1.5, Seq("red")), (2L, "pear", 2.5, Seq.empty[String]))
      .toDF("id", "item", "price", "tags")
      .withColumn("day", lit(java.sql.Date.valueOf("2026-11-28")))
    val expected = json(
      """{"id": 1, "item": "apple", "price": 1.5, "tags": ["red"], "day": "2026-11-28"}""",
      """{"id": 2, "item": "pear", "price": 2.5, "tags": [], "day": "2026-11-28"}"""
    )

    Seq(false, true).foreach { zlib =>
      val written = encode(rows, "visits", Seq("compression" -> "zlib").filter(_ => zlib): _*)
      assert(frames(written).map(_._2).distinct == Seq(zlib))
      val read = serde.deserialize(written)
      assert(read.map(_._1).toSet == Set(version))
      assert(read.map(_._2).toSet == expected)
    }

    // A schema the registry does not have: the JSON Schema to_glue_registry makes of the struct, created.
    val audited =
      serde.deserialize(encode(rows.select("id", "item"), "audit", "registerSchema" -> "true", "dataFormat" -> "JSON"))
    assert(audited.map(_._2).toSet == json("""{"id": 1, "item": "apple"}""", """{"id": 2, "item": "pear"}"""))
  }

  test(
    "Protobuf: rows to_glue_registry writes, zlib or not, of the first message or messageName's, AWS' deserializer reads") {
    // Index by full name: shop.Audit 0, shop.Basket 1, shop.Basket.CountsEntry 2, shop.Line 3.
    val baskets =
      """syntax = "proto3";
        |package shop;
        |message Basket {
        |  int64 id = 1;
        |  optional string note = 2;
        |  repeated Line lines = 3;
        |  map<string, int32> counts = 4;
        |  Status status = 5;
        |}
        |message Line { string item = 1; double price = 2; }
        |enum Status { STATUS_UNSPECIFIED = 0; OPEN = 1; PAID = 2; }
        |message Audit { string who = 1; }
        |""".stripMargin
    val version = UUID.fromString(glue.createSchema(registry, "pb-baskets", "PROTOBUF", baskets))
    val s = spark
    import s.implicits._
    val rows = Seq(
      (1L, Option.empty[String], Seq(("apple", 1.5)), Map("a" -> 1), "OPEN"),
      (2L, Some("ripe"), Seq.empty[(String, Double)], Map.empty[String, Int], "PAID"))
      .toDF("id", "note", "lines", "counts", "status")
      .withColumn("lines", expr("transform(lines, l -> named_struct('item', l._1, 'price', l._2))"))
    val expected = json(
      """{"id": 1, "note": null, "lines": [{"item": "apple", "price": 1.5}], "counts": {"a": 1}, "status": "OPEN"}""",
      """{"id": 2, "note": "ripe", "lines": [], "counts": {}, "status": "PAID"}"""
    )

    Seq(false, true).foreach { zlib =>
      val written = encode(rows, "pb-baskets", Seq("compression" -> "zlib").filter(_ => zlib): _*)
      assert(frames(written).map(_._2).distinct == Seq(zlib))
      val read = serde.deserialize(written)
      assert(read.map(_._1).toSet == Set(version))
      assert(read.map(_._2).toSet == expected)
    }
    val plain = encode(rows, "pb-baskets")
    assert(plain.forall(_(GlueFraming.HeaderLength) == 1), "Basket's message index")

    val audits = encode(Seq("ops", "").toDF("who"), "pb-baskets", "messageName" -> "Audit")
    assert(audits.forall(_(GlueFraming.HeaderLength) == 0), "Audit's message index")
    assert(serde.deserialize(audits).map(_._2).toSet == json("""{"who": "ops"}""", """{"who": ""}"""))

    // A schema the registry does not have: the .proto file to_glue_registry makes of the struct, created.
    val created = serde.deserialize(
      encode(rows.select("id", "note"), "pb-created", "registerSchema" -> "true", "dataFormat" -> "PROTOBUF"))
    assert(created.map(_._2).toSet == json("""{"id": 1, "note": null}""", """{"id": 2, "note": "ripe"}"""))
  }
}
