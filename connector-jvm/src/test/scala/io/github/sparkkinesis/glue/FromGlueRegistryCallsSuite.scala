// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.io.{ByteArrayOutputStream, File}
import java.util.UUID

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.functions.from_glue_registry
import io.github.sparkkinesis.testing.{GlueServer, SparkStreamingSuite}
import org.apache.avro.generic.{GenericData, GenericDatumWriter, GenericRecord}
import org.apache.avro.io.EncoderFactory
import org.apache.avro.Schema
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

/**
 * `from_glue_registry` against a registry on loopback (moto's) that checks every call as AWS does: credentials
 * allowed `glue:GetSchemaVersion` alone decode, which is the policy docs/guides/credentials.md gives, and the
 * registry receives that call alone: once for the reader schema, once per writer version in this JVM.
 */
class FromGlueRegistryCallsSuite extends AnyFunSuite with SparkStreamingSuite {

  private val glue = new GlueServer(new File(sys.props.getOrElse("kinesis.test.root", ".")))
  private val text =
    """{"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"}]}"""

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    glue.start()
    SchemaVersions.useClients(GlueRegistryClient.create)
  }

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
    glue.createRegistry("shop")
    val version = UUID.fromString(glue.createSchema("shop", "orders", "AVRO", text))
    val (keyId, secret) = glue.enforceIam("reader", Seq("glue:GetSchemaVersion"))
    glue.clearCalls()
    val s = spark
    import s.implicits._
    val records = (1L to 20L).map(i => Tuple1(framed(version, i))).toDF("data").repartition(4)
    val options = Map(
      "endpoint" -> glue.endpoint,
      "region" -> glue.region,
      "awsAccessKey" -> keyId,
      "awsSecretKey" -> secret).asJava
    val decoded = records.select(from_glue_registry(col("data"), "orders", "shop", options).as("o")).select("o.id")
    assert(decoded.collect().toSet == (1L to 20L).map(Row(_)).toSet)
    // The reader schema when the function was called, then the writer's version once in this JVM.
    assert(glue.actions() == Seq("GetSchemaVersion", "GetSchemaVersion"))
  }
}
