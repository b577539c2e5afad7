// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.nio.file.Files

import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import io.github.sparkkinesis.functions.{from_glue_registry, to_glue_registry}
import org.apache.avro.generic.{GenericDatumReader, GenericRecord}
import org.apache.avro.io.DecoderFactory
import org.apache.avro.Schema
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{col, lit, struct, when}
import org.scalatest.funsuite.AnyFunSuite

/**
 * `to_glue_registry` on a local session, against a registry in memory: the records it writes (read back by
 * Avro's own reader and by `from_glue_registry`), the version it chooses and when it asks the registry, what
 * registering does, and the errors a user meets: a struct that fits no version, a row that cannot be
 * encoded, bad arguments, in the Scala API and in SQL.
 */
class ToGlueRegistrySuite extends AnyFunSuite with RegistryFunctionsSession {

  private var v1: SchemaVersion = _
  private var v2: SchemaVersion = _

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    v1 = registry.add(orders, "AVRO", v1Text)
    v2 = registry.add(orders, "AVRO", v2Text)
  }

  private def rows: DataFrame = {
    val s = spark
    import s.implicits._
    Seq((1L, "apple", 1.5), (2L, "pear", 2.5), (3L, "fig", 4.0)).toDF("id", "item", "price").repartition(2)
  }

  private def encode(frame: DataFrame, columns: Seq[String], pairs: (String, String)*): DataFrame =
    frame.select(to_glue_registry(struct(columns.map(col): _*), "orders", "shop", options(pairs: _*)).as("data"))

  /** The registry's calls `body` makes. */
  private def callsOf(body: => Any): Seq[String] = {
    val before = registry.made.size
    body
    registry.made.drop(before)
  }

  /** A record read as a consumer without the connector would: the header by hand, the datum by Avro. */
  private def readByAvro(record: Array[Byte], version: SchemaVersion): GenericRecord = {
    val frame = GlueFraming.read(record).fold(problem => fail(problem), identity)
    assert(frame.schemaVersionId == version.id)
    val (bytes, offset, length) = GlueFraming.payload(record, frame)
    val schema = new Schema.Parser().parse(version.definition)
    new GenericDatumReader[GenericRecord](schema)
      .read(null, DecoderFactory.get().binaryDecoder(bytes, offset, length, null))
  }

  test("rows are written with the latest version: Avro's own reader and from_glue_registry read them back") {
    bothEvaluations {
      val records = encode(rows, Seq("id", "item", "price")).collect().map(_.getAs[Array[Byte]](0))
      assert(records.forall(_(1) == 0), "uncompressed by default")
      assert(
        records.map(readByAvro(_, v2)).map(r => (r.get("id"), r.get("item").toString, r.get("price"))).toSet ==
          Set((1L, "apple", 1.5), (2L, "pear", 2.5), (3L, "fig", 4.0)))
      val back = encode(rows, Seq("id", "item", "price"), "compression" -> "zlib")
        .select(from_glue_registry(col("data"), "orders", "shop", options()).as("o"))
        .select("o.*")
      assert(back.collect().toSet == Set(Row(1L, "apple", 1.5), Row(2L, "pear", 2.5), Row(3L, "fig", 4.0)))
    }
  }

  test("zlib compresses the payload behind the header, as the registry's serializers do") {
    val records =
      encode(rows, Seq("id", "item", "price"), "compression" -> "zlib").collect().map(_.getAs[Array[Byte]](0))
    assert(records.forall(r => r(0) == 3 && r(1) == 5))
    assert(records.map(readByAvro(_, v2)).map(_.get("id")).toSet == Set(1L, 2L, 3L))
  }

  test("a struct without a field that has a default writes the default; schemaVersion names an older version") {
    val latest = encode(rows, Seq("id", "item")).collect().map(r => readByAvro(r.getAs[Array[Byte]](0), v2))
    assert(latest.map(_.get("price")).toSet == Set(0.0))
    val older =
      encode(rows, Seq("id", "item"), "schemaVersion" -> "1")
        .collect()
        .map(r => readByAvro(r.getAs[Array[Byte]](0), v1))
    assert(older.map(_.get("item").toString).toSet == Set("apple", "pear", "fig"))
  }

  test("the version is chosen once, at analysis: a struct that fits it not fails before any job, naming the column") {
    val extra = rows.withColumn("discount", lit(0.1))
    val mismatch = intercept[KinesisIllegalArgumentException](encode(extra, Seq("id", "item", "discount")))
    assert(mismatch.getCondition == "KINESIS_GLUE_STRUCT_MISMATCH")
    assert(mismatch.getMessage.contains("cannot write the struct as version 2 of schema 'orders' of registry 'shop'"))
    assert(mismatch.getMessage.contains("discount"))
    assert(mismatch.getMessage.contains("set the option registerSchema to true"))
    val missing = intercept[KinesisIllegalArgumentException](encode(rows, Seq("item")))
    assert(missing.getMessage.contains("id") && missing.getMessage.contains("has no default"))
    val calls = callsOf {
      val encoded = encode(rows, Seq("id", "item", "price"))
      encoded.collect()
      encoded.collect()
    }
    assert(calls == Seq("GetSchemaVersion(shop/orders, latest)"), "one call for the query, none from its tasks")
  }

  test("registerSchema: a struct no version fits registers its schema once; a schema not there is created") {
    // A nullable column, as the registry's BACKWARD compatibility wants a new field: with a default (null).
    val extra = rows.withColumn("discount", when(col("id") > 1, lit(0.1)))
    val columns = Seq("id", "item", "discount")
    val added = Seq.newBuilder[SchemaVersion]
    try {
      val first = callsOf {
        val records = encode(extra, columns, "registerSchema" -> "true").collect()
        val v3 = registry.schemaVersion(orders, None)
        added += v3
        assert(v3.versionNumber == 3)
        assert(new Schema.Parser().parse(v3.definition).getField("discount").defaultVal() != null)
        val discounts = records.map(r => readByAvro(r.getAs[Array[Byte]](0), v3).get("discount"))
        assert(discounts.toSeq.sortBy(_ != null) == Seq(null, 0.1, 0.1))
      }
      assert(first.count(_.startsWith("GetSchemaByDefinition")) == 1)
      val latestFits = callsOf(encode(extra, columns, "registerSchema" -> "true").collect())
      assert(latestFits == Seq("GetSchemaVersion(shop/orders, latest)"), "the latest version fits: nothing registered")
      // A newer version without the column: the struct's own schema is found again by its definition.
      added += registry.add(orders, "AVRO", v2Text)
      val found = callsOf(encode(extra, columns, "registerSchema" -> "true").collect())
      assert(found.exists(_.startsWith("GetSchemaByDefinition")))
      assert(registry.schemaVersion(orders, None).versionNumber == 4, "found by its definition, not registered again")

      val created = rows.select(
        to_glue_registry(struct(col("id"), col("item")), "refunds", "shop", options("registerSchema" -> "true")))
      val records = created.collect().map(_.getAs[Array[Byte]](0))
      val refunds = registry.schemaVersion(SchemaRef("shop", "refunds"), None)
      added += refunds
      assert(refunds.versionNumber == 1 && refunds.dataFormat == "AVRO")
      assert(new Schema.Parser().parse(refunds.definition).getName == "refunds")
      assert(records.map(readByAvro(_, refunds).get("item").toString).toSet == Set("apple", "pear", "fig"))
    } finally added.result().foreach(v => registry.remove(v.id))
  }

  test("registerSchema with a version number is refused: a pinned version is never replaced") {
    val conflict = intercept[KinesisIllegalArgumentException](
      encode(rows, Seq("id", "item"), "registerSchema" -> "true", "schemaVersion" -> "1"))
    assert(conflict.getCondition == "KINESIS_OPTIONS_CONFLICT")
    val unknown = intercept[KinesisIllegalArgumentException](encode(rows, Seq("id", "item"), "mode" -> "PERMISSIVE"))
    assert(unknown.getCondition == "KINESIS_FUNCTION_OPTION_UNKNOWN")
    assert(unknown.getMessage.contains("registerSchema, compression"))
  }

  test("a null where the schema allows none fails its task, naming the column, never the data; a null row is null") {
    val s = spark
    import s.implicits._
    val withNull = Seq[(java.lang.Long, String)]((1L, "apple"), (null, "pear")).toDF("id", "item")
    val error = failure(encode(withNull, Seq("id", "item")).collect())
    assert(error.getCondition == "KINESIS_GLUE_ROW_UNENCODABLE")
    assert(error.getMessage.contains("cannot encode a row as version 2 of schema 'orders' of registry 'shop'"))
    assert(error.getMessage.contains("id"))
    assert(!error.getMessage.contains("pear"))
    val nullRows = rows
      .select(when(col("id") === 2, struct(col("id"), col("item"))).as("s"))
      .select(to_glue_registry(col("s"), "orders", "shop", options()).as("data"))
      .collect()
    assert(nullRows.count(_.isNullAt(0)) == 2 && nullRows.count(!_.isNullAt(0)) == 1)
  }

  test("JSON: rows written as JSON text of a JSON Schema version, read back; a new JSON schema is created") {
    val events = SchemaRef("shop", "events")
    val version = registry.add(
      events,
      "JSON",
      """{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["id"],
        | "properties": {"id": {"type": "integer"}, "item": {"type": "string"},
        |   "day": {"type": "string", "format": "date"}}}""".stripMargin
    )
    val added = Seq.newBuilder[SchemaVersion] += version
    try {
      val dated = rows.withColumn("day", lit(java.sql.Date.valueOf("2026-11-28")))
      val records = dated
        .select(to_glue_registry(struct(col("id"), col("item"), col("day")), "events", "shop", options()).as("data"))
        .collect()
        .map(_.getAs[Array[Byte]](0))
      val texts = records.map { r =>
        val frame = GlueFraming.read(r).fold(problem => fail(problem), identity)
        assert(frame.schemaVersionId == version.id)
        new String(r, GlueFraming.HeaderLength, r.length - GlueFraming.HeaderLength, "UTF-8")
      }
      assert(texts.contains("""{"id":2,"item":"pear","day":"2026-11-28"}"""), texts.toSeq)
      val back = spark
        .createDataFrame(records.toSeq.map(Tuple1(_)))
        .toDF("data")
        .select(from_glue_registry(col("data"), "events", "shop", options()).as("e"))
        .select("e.id", "e.day")
      assert(back.collect().map(_.getLong(0)).toSet == Set(1L, 2L, 3L))

      val mismatch = intercept[KinesisIllegalArgumentException](
        rows.select(to_glue_registry(struct(col("id"), col("price")), "events", "shop", options())))
      assert(mismatch.getCondition == "KINESIS_GLUE_STRUCT_MISMATCH" && mismatch.getMessage.contains("price"))

      val audit = rows.select(
        to_glue_registry(
          struct(col("id"), col("item")),
          "audit",
          "shop",
          options("registerSchema" -> "true", "dataFormat" -> "JSON")).as("data"))
      val audited = audit.collect().map(_.getAs[Array[Byte]](0))
      val created = registry.schemaVersion(SchemaRef("shop", "audit"), None)
      added += created
      assert(created.dataFormat == "JSON" && created.definition.contains("\"title\":\"audit\""), created.definition)
      val decodedAudit = spark
        .createDataFrame(audited.toSeq.map(Tuple1(_)))
        .toDF("data")
        .select(from_glue_registry(col("data"), "audit", "shop", options()).as("a"))
        .select("a.*")
      assert(decodedAudit.collect().toSet == Set(Row(1L, "apple"), Row(2L, "pear"), Row(3L, "fig")))
    } finally added.result().foreach(v => registry.remove(v.id))
  }

  test("a schema of a format it does not write (Protobuf) is refused at analysis, saying so") {
    val version =
      registry.add(SchemaRef("shop", "protos"), "PROTOBUF", "syntax = \"proto3\"; message P { int64 id = 1; }")
    try {
      val error = intercept[KinesisIllegalArgumentException](
        rows.select(to_glue_registry(struct(col("id")), "protos", "shop", options())))
      assert(error.getCondition == "KINESIS_GLUE_SCHEMA_UNUSABLE")
      assert(error.getMessage.contains("does not write the PROTOBUF format yet (AVRO and JSON only)"))
    } finally registry.remove(version.id)
  }

  test("a column that is not a struct is refused at analysis, saying how to make one") {
    val error =
      intercept[KinesisIllegalArgumentException](rows.select(to_glue_registry(col("id"), "orders", "shop", options())))
    assert(error.getCondition == "KINESIS_FUNCTION_ARGUMENTS")
    assert(error.getMessage.contains("it encodes a struct column, and id is of type bigint"))
  }

  test("a streaming query asks the registry once, whatever its micro-batches") {
    val dir = Files.createTempDirectory("to-glue-registry")
    (1 to 3).foreach(i => rows.where(col("id") === i).write.parquet(dir.resolve(s"part$i").toString))
    val stream = spark.readStream
      .schema(rows.schema)
      .option("maxFilesPerTrigger", "1")
      .parquet(dir.resolve("part*").toString)
    val collector = new BatchCollector
    val calls = callsOf {
      collector.runAvailableNow(
        stream
          .select(to_glue_registry(struct(col("id"), col("item")), "orders", "shop", options()).as("data"))
          .select(from_glue_registry(col("data"), "orders", "shop", options()).as("o"))
          .select("o.id", "o.item"),
        newCheckpoint()
      )
    }
    assert(collector.batches.size >= 2)
    assert(collector.rows.toSet == Set(Row(1L, "apple"), Row(2L, "pear"), Row(3L, "fig")))
    assert(calls.count(_ == "GetSchemaVersion(shop/orders, latest)") == 2, "one for each function, at the start")
  }

  test("the plan names the schema and the version chosen, never the keys given") {
    val (keyId, secret) = ("glue-test-key-id-shown-nowhere", "glue-test-secret-shown-nowhere")
    val encoded = encode(rows, Seq("id", "item"), "awsAccessKey" -> keyId, "awsSecretKey" -> secret)
    val plans = encoded.queryExecution.toString + encoded.queryExecution.executedPlan.toString
    assert(plans.contains("to_glue_registry") && plans.contains("shop/orders v2 AVRO"))
    assert(!plans.contains(secret) && !plans.contains(keyId))
  }

  test("SQL: to_glue_registry of the extension, its records read back by from_glue_registry") {
    rows.createOrReplaceTempView("orders_table")
    val back = spark
      .sql(
        "SELECT o.id, o.item FROM (SELECT from_glue_registry(to_glue_registry(struct(id, item), 'orders', 'shop', " +
          "map('region', 'us-east-1', 'compression', 'zlib')), 'orders', 'shop', map('region', 'us-east-1')) AS o " +
          "FROM orders_table)")
      .collect()
    assert(back.toSet == Set(Row(1L, "apple"), Row(2L, "pear"), Row(3L, "fig")))
    val bad = intercept[Throwable](spark.sql("SELECT to_glue_registry(struct(id)) FROM orders_table").collect())
    assert(bad.getMessage.contains("to_glue_registry takes to_glue_registry(struct STRUCT, schemaName STRING"))
  }
}
