// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.io.{ByteArrayOutputStream, File}
import java.util.UUID

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.errors.KinesisThrowable
import io.github.sparkkinesis.functions.{from_glue_registry, to_glue_registry}
import io.github.sparkkinesis.testing.{GlueServer, SparkStreamingSuite}
import org.apache.avro.generic.{GenericData, GenericDatumWriter, GenericRecord}
import org.apache.avro.io.EncoderFactory
import org.apache.avro.Schema
import org.apache.spark.sql.functions.{col, struct, when}
import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

/**
 * The registry functions against a registry on loopback (moto's) that checks every call as AWS does, with
 * the policies docs/guides/credentials.md gives: credentials allowed `glue:GetSchemaVersion` alone decode,
 * and the registry receives that call alone: once for the reader schema, once per writer version in this
 * JVM; they encode too, with one call; registering a struct's schema needs `glue:GetSchemaByDefinition` and
 * `glue:RegisterSchemaVersion` besides, and makes those calls alone.
 */
class FromGlueRegistryCallsSuite extends AnyFunSuite with SparkStreamingSuite {

  private val glue = new GlueServer(new File(sys.props.getOrElse("kinesis.test.root", ".")))
  private val text =
    """{"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"}]}"""

  // What the tests need is made before IAM is enforced, which refuses the fixture's own calls from then on:
  // the schemas' first versions, and the keys of the policies docs/guides/credentials.md gives.
  private var orders: String = _
  private var sales: String = _
  private var reader: (String, String) = _
  private var writer: (String, String) = _
  private var registrar: (String, String) = _

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    glue.start()
    SchemaVersions.useClients(GlueRegistryClient.create)
    Seq("shop", "sales").foreach(glue.createRegistry)
    orders = glue.createSchema("shop", "orders", "AVRO", text)
    sales = glue.createSchema("sales", "orders", "AVRO", text)
    reader = glue.iamUser("reader", Seq("glue:GetSchemaVersion"))
    writer = glue.iamUser("writer", Seq("glue:GetSchemaVersion"))
    registrar = glue.iamUser(
      "registrar",
      Seq("glue:GetSchemaVersion", "glue:GetSchemaByDefinition", "glue:RegisterSchemaVersion"))
    glue.enforceIam()
  }

  private def options(key: (String, String), more: (String, String)*): java.util.Map[String, String] =
    (Map("endpoint" -> glue.endpoint, "region" -> glue.region, "awsAccessKey" -> key._1, "awsSecretKey" -> key._2) ++
      more).asJava

  override protected def afterAll(): Unit =
    try {
      SchemaVersions.useClients(GlueRegistryClient.create)
      glue.stop()
    } finally super.afterAll()

  private def framed(version: UUID, id: Long): Array[Byte] = {
    val schema = new Schema.Parser().parse(text)
    val record = new GenericData.Record(schema)
    record.put("id", id)
    val out = new ByteArrayOutputStream()
    val encoder = EncoderFactory.get().binaryEncoder(out, null)
    new GenericDatumWriter[GenericRecord](schema).write(record, encoder)
    encoder.flush()
    GlueFraming.frame(version, out.toByteArray, compress = id % 2 == 0)
  }

  test("credentials allowed glue:GetSchemaVersion alone decode, and Glue receives that call alone") {
    val version = UUID.fromString(orders)
    glue.clearCalls()
    val s = spark
    import s.implicits._
    val records = (1L to 20L).map(i => Tuple1(framed(version, i))).toDF("data").repartition(4)
    val decoded =
      records.select(from_glue_registry(col("data"), "orders", "shop", options(reader)).as("o")).select("o.id")
    assert(decoded.collect().toSet == (1L to 20L).map(Row(_)).toSet)
    // The reader schema when the function was called, then the writer's version once in this JVM.
    assert(glue.actions() == Seq("GetSchemaVersion", "GetSchemaVersion"))
  }

  test("glue:GetSchemaVersion alone encodes with one call; registering adds the two calls the docs name") {
    val s = spark
    import s.implicits._
    val ids = (1L to 20L).toDF("id").repartition(4)
    glue.clearCalls()
    val records = ids.select(to_glue_registry(struct(col("id")), "orders", "sales", options(writer)).as("data"))
    val written = records.collect().map(_.getAs[Array[Byte]](0))
    assert(glue.actions() == Seq("GetSchemaVersion"), "the latest version, once, on the driver")
    assert(written.forall(r => GlueFraming.read(r).toOption.map(_.schemaVersionId.toString).contains(sales)))

    // A column the version lacks: its own schema is registered, which these keys may not do.
    val noted = ids.withColumn("note", when(col("id") > 10, col("id").cast("string")))
    def register(key: (String, String)) =
      noted.select(
        to_glue_registry(struct(col("id"), col("note")), "orders", "sales", options(key, "registerSchema" -> "true")))
    val denied = intercept[Throwable](register(writer))
    val error = Iterator.iterate(denied)(_.getCause).takeWhile(_ != null).collectFirst { case k: KinesisThrowable => k }
    assert(error.map(_.getCondition).contains("KINESIS_GLUE_REGISTRY_ACCESS_DENIED"), denied)
    assert(denied.getMessage.contains("glue:GetSchemaByDefinition"), denied.getMessage)

    glue.clearCalls()
    val registered = register(registrar).collect()
    assert(registered.length == 20)
    assert(
      glue.actions().toSet == Set("GetSchemaVersion", "GetSchemaByDefinition", "RegisterSchemaVersion"),
      glue.actions())
    assert(glue.actions().count(_ == "RegisterSchemaVersion") == 1)
  }
}
