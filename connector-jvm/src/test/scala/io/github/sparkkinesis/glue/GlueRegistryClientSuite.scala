// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, File, ObjectInputStream, ObjectOutputStream}
import java.util.concurrent.atomic.AtomicInteger
import java.util.UUID

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.aws.{AwsCredentialsConfig, Secret}
import io.github.sparkkinesis.errors.GlueRegistryException
import io.github.sparkkinesis.testing.{GlueServer, ServerProcess}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.BeforeAndAfterAll

/**
 * The registry client against a Glue Schema Registry on loopback (moto's): each call as Glue receives it, what
 * comes back, and the errors a user sees, which name Glue's endpoint, the registry and the schema (or the
 * version id), and never the secret key. The calls Glue received are checked one by one: the client makes the
 * calls it says, and no other, so that the IAM actions documented are all it needs.
 */
class GlueRegistryClientSuite extends AnyFunSuite with BeforeAndAfterAll {

  private val root = new File(sys.props.getOrElse("kinesis.test.root", "."))
  private val glue = new GlueServer(root)
  private val Registry = "payments"
  private val SecretKey = "glue-secret-key-never-shown"
  private val keys = AwsCredentialsConfig.StaticKeys("AKIDGLUETESTKEY1", new Secret(SecretKey), None)
  private val schemas = new AtomicInteger()
  private var client: GlueRegistryApi = _

  private def config = GlueRegistryConfig(glue.region, Some(glue.endpoint), keys)

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    glue.start()
    glue.createRegistry(Registry)
    client = GlueRegistryClient.create(config)
  }

  override protected def afterAll(): Unit =
    try {
      if (client != null) client.close()
      glue.stop()
    } finally super.afterAll()

  /** A schema of its own for each test, so that tests share the server and not their schemas. */
  private def newSchema(): SchemaRef = SchemaRef(Registry, s"orders-${schemas.incrementAndGet()}")

  private def avro(fields: String*): String =
    """{"type":"record","name":"Order","namespace":"shop","fields":[""" +
      ("""{"name":"id","type":"long"}""" +: fields).mkString(",") + "]}"

  private val AvroV1 = avro()
  private val AvroV2 = avro("""{"name":"note","type":["null","string"],"default":null}""")

  /** The calls `body` makes, as Glue received them. */
  private def callsOf[T](body: => T): (T, Seq[GlueServer.Call]) = {
    glue.clearCalls()
    val result = body
    (result, glue.calls())
  }

  private def failure(body: => Any): GlueRegistryException = {
    val e = intercept[GlueRegistryException](body)
    assert(!fullText(e).contains(SecretKey), fullText(e))
    e
  }

  /** An error's message and its causes', all a log could show. */
  private def fullText(t: Throwable): String =
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).take(10).map(c => s"$c ${c.getMessage}").mkString("\n")

  test("an Avro schema: created, a version registered, each fetched by id, by number and as the latest") {
    val schema = newSchema()
    val (v1, created) = callsOf(client.createSchema(schema, "AVRO", AvroV1))
    assert(created.map(_.action) == Seq("CreateSchema"))
    val sent = created.head.request
    assert(sent.path("RegistryId").path("RegistryName").asText == Registry)
    assert(sent.path("SchemaName").asText == schema.schemaName)
    assert(sent.path("DataFormat").asText == "AVRO" && sent.path("Compatibility").asText == "BACKWARD")
    assert(sent.path("SchemaDefinition").asText == AvroV1)
    assert(v1.versionNumber == 1 && v1.status == "AVAILABLE" && v1.dataFormat == "AVRO" && v1.definition == AvroV1)
    assert(v1.schemaArn == s"arn:aws:glue:${glue.region}:123456789012:schema/$Registry/${schema.schemaName}")
    assert(v1.registryName == Registry && v1.schemaName == schema.schemaName && v1.schema == schema)

    val (v2, registered) = callsOf(client.registerSchemaVersion(schema, AvroV2))
    assert(registered.map(_.action) == Seq("RegisterSchemaVersion", "GetSchemaVersion"))
    assert(registered.head.request.path("SchemaId").path("SchemaName").asText == schema.schemaName)
    assert(registered(1).request.path("SchemaVersionId").asText == v2.id.toString)
    assert(v2.versionNumber == 2 && v2.available && v2.definition == AvroV2 && v2.schemaArn == v1.schemaArn)
    assert(v2.id != v1.id)

    val (fetched, byId) = callsOf(Seq(client.schemaVersion(v1.id), client.schemaVersion(v2.id)))
    assert(fetched == Seq(v1, v2))
    assert(byId.map(_.action) == Seq("GetSchemaVersion", "GetSchemaVersion"))
    assert(byId.head.request.fieldNames().asScala.toSeq == Seq("SchemaVersionId"), byId.head.request)

    val (numbered, byNumber) = callsOf(
      Seq(
        client.schemaVersion(schema, Some(1L)),
        client.schemaVersion(schema, Some(2L)),
        client.schemaVersion(schema, None)))
    assert(numbered == Seq(v1, v2, v2))
    assert(byNumber.map(_.action) == Seq.fill(3)("GetSchemaVersion"))
    assert(byNumber.head.request.path("SchemaVersionNumber").path("VersionNumber").asLong == 1L)
    assert(byNumber(2).request.path("SchemaVersionNumber").path("LatestVersion").asBoolean)
    assert(byNumber(2).request.path("SchemaId").path("RegistryName").asText == Registry)
  }

  test("registering a definition the schema has already gives its version back, not a new one") {
    val schema = newSchema()
    val v1 = client.createSchema(schema, "AVRO", AvroV1)
    assert(client.registerSchemaVersion(schema, AvroV1) == v1)
  }

  test("a version found by its definition, with GetSchemaByDefinition alone; None for a definition it lacks") {
    val schema = newSchema()
    val v1 = client.createSchema(schema, "AVRO", AvroV1)
    val (found, calls) = callsOf(client.schemaByDefinition(schema, AvroV1))
    assert(calls.map(_.action) == Seq("GetSchemaByDefinition"))
    assert(calls.head.request.path("SchemaDefinition").asText == AvroV1)
    assert(found.contains(v1.copy(versionNumber = SchemaVersion.UnknownNumber)), found)

    val (missing, more) = callsOf(client.schemaByDefinition(schema, AvroV2))
    assert(missing.isEmpty && more.map(_.action) == Seq("GetSchemaByDefinition"))
    // Glue answers alike when the schema itself, or its registry, does not exist.
    assert(client.schemaByDefinition(SchemaRef(Registry, "no-such-schema"), AvroV1).isEmpty)
    assert(client.schemaByDefinition(SchemaRef("no-such-registry", "orders"), AvroV1).isEmpty)
  }

  test("JSON and Protobuf schemas, created and fetched with their data format and definition") {
    val json = """{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",""" +
      """"properties":{"id":{"type":"integer"}},"required":["id"]}"""
    val proto = "syntax = \"proto3\";\npackage shop;\n\nmessage Order {\n  int64 id = 1;\n  string note = 2;\n}\n"
    Seq("JSON" -> json, "PROTOBUF" -> proto).foreach { case (format, definition) =>
      val schema = newSchema()
      val created = client.createSchema(schema, format, definition)
      assert(created.dataFormat == format && created.definition == definition && created.available)
      assert(client.schemaVersion(created.id) == created)
      assert(client.schemaVersion(schema, None) == created)
      assert(client.schemaByDefinition(schema, definition).map(_.id).contains(created.id))
    }
  }

  test("what does not exist fails NotFound, naming Glue's endpoint and the version id, or the registry and schema") {
    val id = UUID.randomUUID()
    val byId = failure(client.schemaVersion(id))
    assert(byId.kind == GlueRegistryException.NotFound && byId.getCondition == "KINESIS_GLUE_REGISTRY_NOT_FOUND")
    assert(
      byId.getMessage.startsWith(
        s"[KINESIS_GLUE_REGISTRY_NOT_FOUND] The AWS Glue Schema Registry at ${glue.endpoint} (region " +
          s"${glue.region}) has no schema version $id: GetSchemaVersion answered Schema version is not found."),
      byId.getMessage
    )
    assert(byId.getMessage.contains("The id comes from a record's header"), byId.getMessage)
    assert(byId.getSqlState == "42704")

    val schema = newSchema()
    client.createSchema(schema, "AVRO", AvroV1)
    val byNumber = failure(client.schemaVersion(schema, Some(7L)))
    assert(byNumber.kind == GlueRegistryException.NotFound)
    assert(byNumber.getMessage.contains(s"has no version 7 of schema '${schema.schemaName}' of registry '$Registry'"))

    val missing = SchemaRef(Registry, "no-such-schema")
    Seq[() => Any](() => client.schemaVersion(missing, None), () => client.registerSchemaVersion(missing, AvroV1))
      .foreach { call =>
        val e = failure(call())
        assert(e.kind == GlueRegistryException.NotFound, e.getMessage)
        assert(e.getMessage.contains(s"schema 'no-such-schema' of registry '$Registry'"), e.getMessage)
      }
    val noRegistry = failure(client.createSchema(SchemaRef("no-such-registry", "orders"), "AVRO", AvroV1))
    assert(noRegistry.kind == GlueRegistryException.NotFound)
    assert(noRegistry.getMessage.contains("aws glue create-registry"), noRegistry.getMessage)
  }

  test("refusals fail at once with AWS' words: an existing schema (AlreadyExists), a data format Glue lacks") {
    val schema = newSchema()
    client.createSchema(schema, "AVRO", AvroV1)
    val (again, calls) = callsOf(failure(client.createSchema(schema, "AVRO", AvroV1)))
    assert(calls.map(_.action) == Seq("CreateSchema"), "a refusal is not tried again")
    assert(again.kind == GlueRegistryException.AlreadyExists && again.getCondition == "KINESIS_GLUE_REGISTRY_REFUSED")
    assert(again.getMessage.contains("refused CreateSchema for schema"), again.getMessage)
    assert(again.getMessage.contains("AlreadyExistsException: Schema already exists."), again.getMessage)

    val xml = failure(client.createSchema(newSchema(), "XML", "<schema/>"))
    assert(xml.kind == GlueRegistryException.Refused)
    assert(xml.getMessage.contains("InvalidInputException: Data format is not valid."), xml.getMessage)
  }

  test("a registry out of reach (a closed port) fails Unreachable after the bounded attempts, saying so") {
    val closed = s"http://127.0.0.1:${ServerProcess.freePort()}"
    val unreachable = GlueRegistryClient.create(GlueRegistryConfig("eu-west-1", Some(closed), keys))
    try {
      val e = failure(unreachable.schemaVersion(new UUID(1L, 2L)))
      assert(e.kind == GlueRegistryException.Unreachable && e.getCondition == "KINESIS_GLUE_REGISTRY_UNREACHABLE")
      assert(
        e.getMessage.startsWith(
          s"[KINESIS_GLUE_REGISTRY_UNREACHABLE] Could not get an answer from the AWS Glue Schema Registry at " +
            s"$closed (region eu-west-1) to GetSchemaVersion for schema version ${new UUID(1L, 2L)}: 4 attempts over"),
        e.getMessage
      )
      assert(e.getMessage.contains("Connection refused"), e.getMessage)
    } finally unreachable.close()
  }

  test("calls are signed for Glue in the registry's region and name the connector in their user agent") {
    val schema = newSchema()
    val (_, calls) = callsOf(client.createSchema(schema, "AVRO", AvroV1))
    val request = calls.head.raw
    assert(request.signedBy.contains("AKIDGLUETESTKEY1") && request.signedFor.contains(s"${glue.region}/glue"))
    assert(request.header("User-Agent").exists(_.startsWith("spark-kinesis/glue-registry ")), request.headers)
    assert(request.header("Content-Type").contains("application/x-amz-json-1.1"))
    assert(!request.headers.values.exists(_.contains(SecretKey)) && !request.body.contains(SecretKey))
  }

  test("the configuration travels to executors as it is, and shows no secret") {
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    out.writeObject(config)
    out.close()
    val back = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)).readObject()
    assert(back == config)
    assert(!config.toString.contains(SecretKey), config.toString)
    assert(GlueRegistryConfig("eu-west-1", None, keys).url == "https://glue.eu-west-1.amazonaws.com")
    assert(GlueRegistryConfig("cn-north-1", None, keys).url == "https://glue.cn-north-1.amazonaws.com.cn")
  }

  test("with IAM enforced, each call needs its action: a reader allowed GetSchemaVersion alone encodes nothing") {
    val strict = new GlueServer(root)
    strict.start()
    try {
      strict.createRegistry(Registry)
      val id = UUID.fromString(strict.createSchema(Registry, "orders", "AVRO", AvroV1))
      val (keyId, secret) = strict.enforceIam("reader", Seq("glue:GetSchemaVersion"))
      val reader = GlueRegistryClient.create(
        GlueRegistryConfig(
          strict.region,
          Some(strict.endpoint),
          AwsCredentialsConfig.StaticKeys(keyId, new Secret(secret), None)))
      try {
        // The signature is checked, so this also says the client signs as AWS does.
        assert(reader.schemaVersion(id).definition == AvroV1)
        val denied = failure(reader.schemaByDefinition(SchemaRef(Registry, "orders"), AvroV1))
        assert(denied.kind == GlueRegistryException.AccessDenied)
        assert(
          denied.getMessage.startsWith(
            s"[KINESIS_GLUE_REGISTRY_ACCESS_DENIED] The AWS Glue Schema Registry at ${strict.endpoint} (region " +
              s"${strict.region}) denied glue:GetSchemaByDefinition on the version of schema 'orders' of registry " +
              s"'$Registry' with the definition given to arn:aws:iam::123456789012:user/reader."),
          denied.getMessage
        )
        assert(!denied.getMessage.contains(secret))
      } finally reader.close()

      val wrong = GlueRegistryClient.create(
        GlueRegistryConfig(
          strict.region,
          Some(strict.endpoint),
          AwsCredentialsConfig.StaticKeys(keyId, new Secret(SecretKey), None)))
      try {
        val refused = failure(wrong.schemaVersion(id))
        assert(refused.kind == GlueRegistryException.AccessDenied)
        assert(refused.getCondition == "KINESIS_GLUE_REGISTRY_CREDENTIALS" && refused.getSqlState == "28000")
        assert(
          refused.getMessage.contains(
            s"Glue at ${strict.endpoint} (region ${strict.region}) did not accept the keys given as awsAccessKey"),
          refused.getMessage)
        assert(refused.getMessage.contains("SignatureDoesNotMatch") || refused.getMessage.contains("signature"))
      } finally wrong.close()
    } finally strict.stop()
  }
}
