// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.io.ByteArrayOutputStream

import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import io.github.sparkkinesis.functions.{from_glue_registry, glue_registry_header}
import org.apache.avro.generic.{GenericData, GenericDatumWriter, GenericRecord}
import org.apache.avro.io.EncoderFactory
import org.apache.avro.Schema
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.col
import org.scalatest.funsuite.AnyFunSuite

/**
 * `from_glue_registry` and `glue_registry_header` on a local session, against a registry in memory: what a
 * user sees of records written with several versions of a schema, of records that cannot be decoded in each
 * mode, of bad arguments, and of the SQL functions the session extension registers.
 */
class FromGlueRegistrySuite extends AnyFunSuite with RegistryFunctionsSession {

  /** The item as a number: a version Avro cannot resolve to the others (the registry's rule would refuse it). */
  private val v3Text = v2Text.replace(""""item", "type": "string"""", """"item", "type": "int"""")
  private val payments = SchemaRef("shop", "payments")

  private var v1: SchemaVersion = _
  private var v2: SchemaVersion = _
  private var v3: SchemaVersion = _
  private var payment: SchemaVersion = _

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    v1 = registry.add(orders, "AVRO", v1Text)
    v2 = registry.add(orders, "AVRO", v2Text)
    payment =
      registry.add(payments, "AVRO", """{"type": "record", "name": "P", "fields": [{"name": "id", "type": "long"}]}""")
  }

  private def avro(schemaText: String, fields: (String, Any)*): Array[Byte] = {
    val schema = new Schema.Parser().parse(schemaText)
    val record = new GenericData.Record(schema)
    fields.foreach { case (k, v) => record.put(k, v) }
    val out = new ByteArrayOutputStream()
    val encoder = EncoderFactory.get().binaryEncoder(out, null)
    new GenericDatumWriter[GenericRecord](schema).write(record, encoder)
    encoder.flush()
    out.toByteArray
  }

  private def records(data: Array[Byte]*): DataFrame = {
    val s = spark
    import s.implicits._
    data.map(Tuple1(_)).toDF("data").repartition(2)
  }

  private lazy val written = Seq(
    GlueFraming.frame(v1Id, avro(v1Text, "id" -> 1L, "item" -> "apple"), compress = false),
    GlueFraming.frame(v2Id, avro(v2Text, "id" -> 2L, "item" -> "pear", "price" -> 2.5), compress = true),
    GlueFraming.frame(v2Id, avro(v2Text, "id" -> 3L, "item" -> "fig", "price" -> 4.0), compress = false)
  )
  private def v1Id = v1.id
  private def v2Id = v2.id

  private def decode(data: Seq[Array[Byte]], pairs: (String, String)*): DataFrame =
    records(data: _*).select(from_glue_registry(col("data"), "orders", "shop", options(pairs: _*)).as("o"))

  test("records of two versions decode to the latest version, the older one's new field at its default") {
    bothEvaluations {
      val decoded = decode(written)
      assert(decoded.schema("o").dataType.simpleString == "struct<id:bigint,item:string,price:double>")
      assert(
        decoded.select("o.*").collect().toSet ==
          Set(Row(1L, "apple", 0.0), Row(2L, "pear", 2.5), Row(3L, "fig", 4.0)))
    }
  }

  test("a reader version named by schemaVersion: the newer records' fields it lacks are left out") {
    val decoded = decode(written, "schemaVersion" -> "1")
    assert(decoded.schema("o").dataType.simpleString == "struct<id:bigint,item:string>")
    assert(decoded.select("o.*").collect().toSet == Set(Row(1L, "apple"), Row(2L, "pear"), Row(3L, "fig")))
  }

  test("each writer version is asked of the registry once in this JVM, whatever the records and tasks") {
    SchemaVersions.useClients(_ => registry)
    val before = registry.made.size
    decode(written ++ written ++ written).collect()
    decode(written).collect()
    val asked = registry.made.drop(before)
    assert(asked.count(_ == s"GetSchemaVersion(${v1.id})") == 1)
    assert(asked.count(_ == s"GetSchemaVersion(${v2.id})") == 1)
  }

  test("FAILFAST: a record that is not framed, of another schema, or unresolvable fails the query, saying why") {
    val plain = """{"id": 4}""".getBytes("UTF-8")
    val notFramed = failure(decode(written :+ plain).collect())
    assert(notFramed.getCondition == "KINESIS_GLUE_RECORD_UNDECODABLE.NOT_FRAMED")
    assert(notFramed.getMessage.contains("a record of 9 bytes: its first byte is 0x7b"))
    assert(notFramed.getMessage.contains("mode set to PERMISSIVE"))

    val other = GlueFraming.frame(payment.id, avro(payment.definition, "id" -> 5L), compress = false)
    val otherSchema = failure(decode(Seq(other)).collect())
    assert(otherSchema.getCondition == "KINESIS_GLUE_RECORD_UNDECODABLE.OTHER_SCHEMA")
    assert(otherSchema.getMessage.contains("schema 'shop/payments'"))

    v3 = registry.add(orders, "AVRO", v3Text)
    try {
      val unresolvable = GlueFraming.frame(v3.id, avro(v3Text, "id" -> 6L, "item" -> 7, "price" -> 1.0), false)
      val invalid = failure(decode(Seq(unresolvable), "schemaVersion" -> "2").collect())
      assert(invalid.getCondition == "KINESIS_GLUE_RECORD_UNDECODABLE.INVALID")
      assert(invalid.getMessage.contains(s"not valid for version 3 (${v3.id}, AVRO)"))
    } finally registry.remove(v3.id)

    // A writer version whose definition is no Avro schema (the registry checks definitions; a test server
    // or a hand-made schema may not): the record's failure, in each mode, not the task's.
    val broken = registry.add(orders, "AVRO", """{"type": "record", "name": "Order", "fields": [{"name": "id"}]}""")
    try {
      val record = GlueFraming.frame(broken.id, avro(v1Text, "id" -> 8L, "item" -> "kiwi"), compress = false)
      val unreadable = failure(decode(Seq(record), "schemaVersion" -> "2").collect())
      assert(unreadable.getCondition == "KINESIS_GLUE_RECORD_UNDECODABLE.INVALID")
      assert(unreadable.getMessage.contains(
        s"not valid for version ${broken.versionNumber} (${broken.id}, AVRO): the version's definition cannot be read"))
      val permissive = decode(written :+ record, "schemaVersion" -> "2", "mode" -> "PERMISSIVE").collect()
      assert(permissive.count(_.isNullAt(0)) == 1 && permissive.length == 4)
    } finally registry.remove(broken.id)
  }

  test("PERMISSIVE: records that cannot be decoded are null and counted; the others decode") {
    bothEvaluations {
      val plain = "not framed".getBytes("UTF-8")
      val other = GlueFraming.frame(payment.id, avro(payment.definition, "id" -> 5L), compress = false)
      val unknown = GlueFraming.frame(java.util.UUID.randomUUID(), Array[Byte](2, 4), compress = false)
      val garbage = GlueFraming.frame(v2.id, Array[Byte](1), compress = false)
      val decoded = decode(written ++ Seq(plain, other, unknown, garbage), "mode" -> "PERMISSIVE")
      val rows = decoded.collect()
      assert(rows.count(_.isNullAt(0)) == 4)
      assert(rows.filterNot(_.isNullAt(0)).map(_.getStruct(0).getLong(0)).toSet == Set(1L, 2L, 3L))
      val counter = decoded.queryExecution.analyzed.expressions
        .flatMap(_.collect { case f: FromGlueRegistry => f.decoding.undecodable })
        .flatten
      assert(counter.map(_.value).toSeq == Seq(4L))
      assert(counter.head.name.contains("from_glue_registry undecodable records (shop/orders)"))
    }
  }

  test("JSON: records of a JSON Schema by property name, a newer writer's extra property ignored, in each mode") {
    val events = SchemaRef("shop", "events")
    val older = registry.add(
      events,
      "JSON",
      """{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["id"],
        | "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}},
        |   "day": {"type": "string", "format": "date"}}}""".stripMargin
    )
    val newer = registry.add(events, "JSON", older.definition.replace("\"tags\"", "\"note\": {}, \"tags\""))
    def json(version: SchemaVersion, text: String, compress: Boolean = false) =
      GlueFraming.frame(version.id, text.getBytes("UTF-8"), compress)
    val good = Seq(
      json(older, """{"id": 1, "tags": ["a", "b"], "day": "2026-11-28"}"""),
      json(newer, """{"note": {"by": "x"}, "id": 2, "tags": []}""", compress = true))
    val malformed = json(older, """{"id": 3, "tags": ["a""")
    def decodeEvents(data: Seq[Array[Byte]], pairs: (String, String)*) =
      records(data: _*).select(
        from_glue_registry(col("data"), "events", "shop", options(("schemaVersion" -> "1") +: pairs: _*)).as("e"))
    try {
      bothEvaluations {
        val decoded = decodeEvents(good)
        assert(decoded.schema("e").dataType.simpleString == "struct<id:bigint,tags:array<string>,day:date>")
        assert(
          decoded.select("e.*").collect().toSet == Set(
            Row(1L, Seq("a", "b"), java.sql.Date.valueOf("2026-11-28")),
            Row(2L, Seq.empty[String], null)))
      }
      val invalid = failure(decodeEvents(good :+ malformed).collect())
      assert(invalid.getCondition == "KINESIS_GLUE_RECORD_UNDECODABLE.INVALID")
      assert(invalid.getMessage.contains(s"not valid for version 1 (${older.id}, JSON)"))
      assert(invalid.getMessage.contains("ends within its JSON value (truncated)"))
      val permissive = decodeEvents(good :+ malformed, "mode" -> "PERMISSIVE").collect()
      assert(permissive.count(_.isNullAt(0)) == 1)
      assert(permissive.filterNot(_.isNullAt(0)).map(_.getStruct(0).getLong(0)).toSet == Set(1L, 2L))
    } finally Seq(older, newer).foreach(v => registry.remove(v.id))
  }

  test("PROTOBUF: records of two versions by field number, each version's message index, to the latest") {
    import io.github.sparkkinesis.glue.protobuf.WireWriter.{int, str, varint}
    val events = SchemaRef("shop", "pb-events")
    val older = registry.add(
      events,
      "PROTOBUF",
      """syntax = "proto3";
        |package shop;
        |message Event { int64 id = 1; string name = 2; }
        |""".stripMargin)
    // The newer version adds a field, and a message that sorts first: Event's index is 1 in it, 0 in the older.
    val newer = registry.add(
      events,
      "PROTOBUF",
      """syntax = "proto3";
        |package shop;
        |message Event { int64 id = 1; string name = 2; repeated string tags = 3; }
        |message Alert { string text = 1; }
        |""".stripMargin
    )
    def proto(version: SchemaVersion, index: Int, message: Array[Byte], compress: Boolean = false) =
      GlueFraming.frame(version.id, varint(index.toLong) ++ message, compress)
    val good = Seq(
      proto(older, 0, int(1, 1) ++ str(2, "a")),
      proto(newer, 1, int(1, 2) ++ str(3, "x") ++ str(3, "y"), compress = true))
    val alert = proto(newer, 0, str(1, "not an event"))
    def decodeEvents(data: Seq[Array[Byte]], pairs: (String, String)*) =
      records(data: _*).select(from_glue_registry(col("data"), "pb-events", "shop", options(pairs: _*)).as("e"))
    try {
      bothEvaluations {
        val decoded = decodeEvents(good)
        assert(decoded.schema("e").dataType.simpleString == "struct<id:bigint,name:string,tags:array<string>>")
        assert(
          decoded.select("e.*").collect().toSet ==
            Set(Row(1L, "a", Seq.empty[String]), Row(2L, null, Seq("x", "y"))))
      }
      val invalid = failure(decodeEvents(good :+ alert).collect())
      assert(invalid.getCondition == "KINESIS_GLUE_RECORD_UNDECODABLE.INVALID")
      assert(invalid.getMessage.contains(s"not valid for version 2 (${newer.id}, PROTOBUF)"))
      assert(invalid.getMessage.contains("message index 0 names message shop.Alert of version 2, not shop.Event"))
      val permissive = decodeEvents(good :+ alert, "mode" -> "PERMISSIVE").collect()
      assert(permissive.count(_.isNullAt(0)) == 1)
    } finally Seq(older, newer).foreach(v => registry.remove(v.id))
  }

  test("PROTOBUF: a reader schema Spark cannot type is refused when the function is called") {
    val loops = SchemaRef("shop", "pb-loops")
    val version = registry.add(loops, "PROTOBUF", "syntax = \"proto3\";\nmessage Node { repeated Node children = 1; }")
    try {
      val refused = failure(records().select(from_glue_registry(col("data"), "pb-loops", "shop", options()).as("n")))
      assert(refused.getCondition.startsWith("KINESIS_GLUE_SCHEMA_UNUSABLE"), refused.getCondition)
      assert(refused.getMessage.contains("message Node contains itself (at Node.children[])"))
    } finally registry.remove(version.id)
  }

  test("options are checked when the function is called: an unknown key is named with those it takes") {
    val unknown = intercept[KinesisIllegalArgumentException](decode(written, "schemaVersoin" -> "1"))
    assert(unknown.getCondition == "KINESIS_FUNCTION_OPTION_UNKNOWN")
    assert(unknown.getMessage.contains("from_glue_registry has no option 'schemaVersoin'; it takes region, endpoint"))
    val badVersion = intercept[KinesisIllegalArgumentException](decode(written, "schemaVersion" -> "newest"))
    assert(badVersion.getMessage.contains("expected latest or a version number from 1"))
    val format = intercept[KinesisIllegalArgumentException](decode(written, "dataFormat" -> "JSON"))
    assert(format.getCondition == "KINESIS_GLUE_SCHEMA_UNUSABLE")
    assert(format.getMessage.contains("the option dataFormat says JSON"))
  }

  test("the plan names the schema and version, never the keys given") {
    val (keyId, secret) = ("glue-test-key-id-shown-nowhere", "glue-test-secret-shown-nowhere")
    val decoded = decode(written, "awsAccessKey" -> keyId, "awsSecretKey" -> secret)
    val plans = decoded.queryExecution.toString + decoded.queryExecution.executedPlan.toString
    assert(plans.contains("from_glue_registry"))
    assert(plans.contains("shop/orders v2 AVRO"))
    assert(!plans.contains(secret) && !plans.contains(keyId))
  }

  test("SQL: the extension's functions, with the registry's name and options as literals") {
    records(written: _*).createOrReplaceTempView("framed")
    val rows = spark
      .sql(
        "SELECT o.id, o.item FROM (SELECT from_glue_registry(data, 'orders', 'shop', " +
          "map('region', 'us-east-1', 'schemaVersion', '1')) AS o FROM framed)")
      .collect()
    assert(rows.toSet == Set(Row(1L, "apple"), Row(2L, "pear"), Row(3L, "fig")))
    val headers = spark.sql("SELECT glue_registry_header(data) AS h FROM framed").collect().map(_.getStruct(0))
    assert(headers.map(_.getString(0)).toSet == Set(v1.id.toString, v2.id.toString))
    assert(headers.map(_.getString(1)).sorted.toSeq == Seq("none", "none", "zlib"))
    val bad = intercept[Throwable](spark.sql("SELECT from_glue_registry(data) FROM framed").collect())
    assert(bad.getMessage.contains("from_glue_registry takes from_glue_registry(data BINARY, schemaName STRING"))
  }

  test("glue_registry_header: the header's fields and the inflated payload, or null for a record not framed") {
    val payload = avro(v2Text, "id" -> 2L, "item" -> "pear", "price" -> 2.5)
    val rows = records(GlueFraming.frame(v2.id, payload, compress = true), "plain".getBytes("UTF-8"))
      .select(glue_registry_header(col("data")).as("h"))
      .collect()
    val (framed, plain) = rows.partition(!_.isNullAt(0))
    assert(plain.length == 1)
    val header = framed.head.getStruct(0)
    assert(header.getString(0) == v2.id.toString && header.getString(1) == "zlib")
    assert(header.getAs[Array[Byte]](2).sameElements(payload))
  }
}
