// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.nio.file.Files

import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import io.github.sparkkinesis.functions.{from_glue_registry, to_glue_registry}
import io.github.sparkkinesis.glue.protobuf.{GsrMessageIndex, ProtoSchemas}
import io.github.sparkkinesis.glue.protobuf.WireWriter.{fixed64, int, str, tag}
import org.apache.avro.generic.{GenericDatumReader, GenericRecord}
import org.apache.avro.io.DecoderFactory
import org.apache.avro.Schema
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{array, col, lit, struct, when}
import org.scalatest.funsuite.AnyFunSuite

/**
 * `to_glue_registry` on a local session, against a registry in memory: the records it writes (read back by
 * Avro's own reader, Protobuf's wire format read by hand, and `from_glue_registry`), the version it chooses and when it asks the registry, what
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

  private val shopProto =
    """syntax = "proto3";
      |package shop;
      |message Order { int64 id = 1; string item = 2; double price = 3; repeated string tags = 4; }
      |message Refund { int64 order_id = 1; string reason = 2; }
      |""".stripMargin

  /** A Protobuf record's message index and message, read as a consumer without the connector would. */
  private def protoPayload(record: Array[Byte], version: SchemaVersion): (Int, Seq[Byte]) = {
    val frame = GlueFraming.read(record).fold(problem => fail(problem), identity)
    assert(frame.schemaVersionId == version.id)
    val (bytes, offset, length) = GlueFraming.payload(record, frame)
    val (index, used) = GsrMessageIndex.read(bytes, offset, length)
    (index, bytes.slice(offset + used, offset + length).toSeq)
  }

  private def decodeAll(records: Seq[Array[Byte]], schema: String, pairs: (String, String)*): DataFrame =
    spark
      .createDataFrame(records.map(Tuple1(_)))
      .toDF("data")
      .select(from_glue_registry(col("data"), schema, "shop", options(pairs: _*)).as("r"))
      .select("r.*")

  test("PROTOBUF: rows written as messages of a registered .proto version, read back by from_glue_registry") {
    val version = registry.add(SchemaRef("shop", "pb-orders"), "PROTOBUF", shopProto)
    try
      bothEvaluations {
        val records = rows
          .select(to_glue_registry(struct(col("price"), col("id"), col("item")), "pb-orders", "shop", options()))
          .collect()
          .map(_.getAs[Array[Byte]](0))
        // The index of shop.Order (first of shop.Order, shop.Refund), then its fields by number.
        val pear = int(1, 2) ++ str(2, "pear") ++ tag(3, 1) ++ fixed64(java.lang.Double.doubleToLongBits(2.5))
        assert(records.map(protoPayload(_, version)).contains((0, pear.toSeq)))
        val back = decodeAll(records.toSeq, "pb-orders")
        assert(back.schema.simpleString == "struct<id:bigint,item:string,price:double,tags:array<string>>")
        assert(
          back.collect().toSet ==
            Set(Row(1L, "apple", 1.5, Seq.empty), Row(2L, "pear", 2.5, Seq.empty), Row(3L, "fig", 4.0, Seq.empty)))
      }
    finally registry.remove(version.id)
  }

  test("PROTOBUF: a struct that does not fit the message, and a row it cannot hold, are refused naming the column") {
    val version = registry.add(SchemaRef("shop", "pb-orders"), "PROTOBUF", shopProto)
    try {
      val mismatch = intercept[KinesisIllegalArgumentException](
        rows.select(to_glue_registry(struct(col("id").cast("string").as("id")), "pb-orders", "shop", options())))
      assert(mismatch.getCondition == "KINESIS_GLUE_STRUCT_MISMATCH")
      assert(
        mismatch.getMessage.contains(
          "(PROTOBUF): column id: Spark type string cannot be written as Protobuf int64. Cast it to bigint"),
        mismatch.getMessage)
      val withNull = rows.select(
        to_glue_registry(
          struct(array(col("item"), lit(null).cast("string")).as("tags")),
          "pb-orders",
          "shop",
          options()))
      val error = failure(withNull.collect())
      assert(error.getCondition == "KINESIS_GLUE_ROW_UNENCODABLE")
      assert(error.getMessage.contains("column tags[]: a null element, and Protobuf's repeated fields hold no null"))
      assert(!error.getMessage.contains("pear"))
    } finally registry.remove(version.id)
  }

  test("PROTOBUF: registerSchema creates a PROTOBUF schema of the struct's own .proto, or registers a version") {
    val added = Seq.newBuilder[SchemaVersion]
    try {
      val created = rows
        .select(
          to_glue_registry(
            struct(col("id"), col("item")),
            "pb-created",
            "shop",
            options("registerSchema" -> "true", "dataFormat" -> "PROTOBUF")))
        .collect()
        .map(_.getAs[Array[Byte]](0))
      val first = registry.schemaVersion(SchemaRef("shop", "pb-created"), None)
      added += first
      assert(first.versionNumber == 1 && first.dataFormat == "PROTOBUF")
      assert(
        first.definition == ProtoSchemas.fromSqlType(rows.select(col("id"), col("item")).schema, "pb_created"),
        first.definition)
      assert(first.definition.contains("message pb_created {\n  int64 id = 1;\n  optional string item = 2;\n}"))
      assert(
        decodeAll(created.toSeq, "pb-created")
          .collect()
          .toSet == Set(Row(1L, "apple"), Row(2L, "pear"), Row(3L, "fig")))

      // A column the version lacks: the struct's own .proto registered as the next version.
      val discounted = rows
        .withColumn("discount", when(col("id") > 1, lit(0.1)))
        .select(
          to_glue_registry(
            struct(col("id"), col("item"), col("discount")),
            "pb-created",
            "shop",
            options("registerSchema" -> "true")))
        .collect()
        .map(_.getAs[Array[Byte]](0))
      val second = registry.schemaVersion(SchemaRef("shop", "pb-created"), None)
      added += second
      assert(second.versionNumber == 2 && second.dataFormat == "PROTOBUF")
      assert(second.definition.contains("optional double discount = 3;"))
      // Both versions' records read with the latest: by field number, the first's without a discount.
      val back = decodeAll((created ++ discounted).toSeq, "pb-created").collect()
      assert(back.count(_ == Row(1L, "apple", null)) == 2 && back.contains(Row(2L, "pear", 0.1)))
    } finally added.result().foreach(v => registry.remove(v.id))
  }

  test("messageName: the message both functions write and read, by full or simple name") {
    val version = registry.add(SchemaRef("shop", "pb-orders"), "PROTOBUF", shopProto)
    val added = Seq.newBuilder[SchemaVersion] += version
    try {
      val refund = struct(col("id").as("order_id"), lit("late").as("reason"))
      val records = rows
        .select(to_glue_registry(refund, "pb-orders", "shop", options("messageName" -> "Refund")))
        .collect()
        .map(_.getAs[Array[Byte]](0))
      assert(records.map(protoPayload(_, version)).contains((1, (int(1, 2) ++ str(2, "late")).toSeq)))
      val back = decodeAll(records.toSeq, "pb-orders", "messageName" -> "shop.Refund")
      assert(back.schema.simpleString == "struct<order_id:bigint,reason:string>")
      assert(back.collect().toSet == Set(Row(1L, "late"), Row(2L, "late"), Row(3L, "late")))
      // The plans name the message each function writes or reads.
      val written = rows.select(to_glue_registry(refund, "pb-orders", "shop", options("messageName" -> "Refund")))
      assert(written.queryExecution.toString.contains("shop/pb-orders v1 PROTOBUF message Refund"))
      assert(back.queryExecution.toString.contains("shop/pb-orders v1 PROTOBUF message shop.Refund"))
      // Read as the file's first message, shop.Order, they are records of another message.
      val other = failure(decodeAll(records.toSeq, "pb-orders").collect())
      assert(other.getCondition == "KINESIS_GLUE_RECORD_UNDECODABLE.INVALID")
      assert(other.getMessage.contains("message index 1 names message shop.Refund of version 1, not shop.Order"))

      val missing = intercept[KinesisIllegalArgumentException](
        rows.select(to_glue_registry(refund, "pb-orders", "shop", options("messageName" -> "shop.Return"))))
      assert(missing.getCondition == "KINESIS_GLUE_SCHEMA_UNUSABLE")
      assert(
        missing.getMessage.contains(
          "to_glue_registry cannot use schema 'pb-orders' of registry 'shop' (version 1, PROTOBUF): the option " +
            "messageName is shop.Return, and the .proto file has no message of that name: its messages are " +
            "shop.Order, shop.Refund."),
        missing.getMessage
      )
      val missingRead =
        intercept[KinesisIllegalArgumentException](decodeAll(Nil, "pb-orders", "messageName" -> "Return"))
      assert(missingRead.getCondition == "KINESIS_GLUE_SCHEMA_UNUSABLE")
      assert(missingRead.getMessage.contains("its messages are shop.Order, shop.Refund"))

      // Of a schema of another format, refused; with dataFormat another format, refused when called.
      val avro = intercept[KinesisIllegalArgumentException](encode(rows, Seq("id", "item"), "messageName" -> "Order"))
      assert(avro.getCondition == "KINESIS_GLUE_SCHEMA_UNUSABLE")
      assert(avro.getMessage.contains("the option messageName names a message of a PROTOBUF schema's .proto file"))
      val conflict = intercept[KinesisIllegalArgumentException](
        encode(rows, Seq("id", "item"), "messageName" -> "Order", "dataFormat" -> "AVRO"))
      assert(conflict.getCondition == "KINESIS_OPTIONS_CONFLICT")
      assert(conflict.getMessage.contains("Options 'messageName' and 'dataFormat' cannot be set together"))
      val invalid =
        intercept[KinesisIllegalArgumentException](encode(rows, Seq("id", "item"), "messageName" -> "shop..Order"))
      assert(invalid.getCondition == "KINESIS_OPTION_INVALID" && invalid.getMessage.contains("messageName"))

      // registerSchema with a messageName and no dataFormat: a PROTOBUF schema declaring that message.
      val created = rows
        .select(
          to_glue_registry(
            struct(col("id"), col("item")),
            "pb-refunds",
            "shop",
            options("registerSchema" -> "true", "messageName" -> "shop.v1.Refund")))
        .collect()
        .map(_.getAs[Array[Byte]](0))
      val refunds = registry.schemaVersion(SchemaRef("shop", "pb-refunds"), None)
      added += refunds
      assert(refunds.dataFormat == "PROTOBUF" && refunds.definition.contains("package shop.v1;\n"))
      assert(refunds.definition.contains("message Refund {"))
      assert(
        decodeAll(created.toSeq, "pb-refunds", "messageName" -> "Refund").collect().toSet ==
          Set(Row(1L, "apple"), Row(2L, "pear"), Row(3L, "fig")))
    } finally added.result().foreach(v => registry.remove(v.id))
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
