// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.concurrent.atomic.AtomicBoolean
import java.util.UUID

import com.fasterxml.jackson.databind.node.{JsonNodeFactory, ObjectNode}
import com.fasterxml.jackson.databind.JsonNode
import io.github.sparkkinesis.errors.{GlueRegistryErrors, GlueRegistryException}
import io.github.sparkkinesis.glue.GlueCalls.{Subject, Unreadable}
import io.github.sparkkinesis.util.{Backoff, Clock, SystemClock}

/**
 * The [[GlueRegistryApi]] that calls the AWS Glue Schema Registry: each method is one of Glue's operations
 * in its JSON form, made through [[GlueCalls]] (bounded retries, the connector's errors), and, for a version
 * being registered, GetSchemaVersion again while it is PENDING, a bounded number of times. Runs on the
 * driver or an executor; thread-safe; `close()` is idempotent.
 */
private[sparkkinesis] final class GlueRegistryClient(
    transport: GlueTransport,
    clock: Clock,
    policy: GlueRegistryClient.Policy = GlueRegistryClient.Policy())
    extends GlueRegistryApi {
  import GlueRegistryClient._

  private val calls = new GlueCalls(transport, clock, policy.calls)
  private val closed = new AtomicBoolean(false)

  override def schemaVersion(id: UUID): SchemaVersion = {
    val subject = Subject(s"schema version $id", ByIdCheck)
    calls.call("GetSchemaVersion", json("SchemaVersionId" -> id.toString), subject)(versionOf)
  }

  override def schemaVersion(schema: SchemaRef, version: Option[Long]): SchemaVersion = {
    val which = version.fold(json("LatestVersion" -> true))(n => json("VersionNumber" -> n))
    val what = version.fold(s"the latest version of ${schema.describe}")(n => s"version $n of ${schema.describe}")
    val request = json("SchemaId" -> schemaId(schema), "SchemaVersionNumber" -> which)
    calls.call("GetSchemaVersion", request, Subject(what, BySchemaCheck))(versionOf)
  }

  override def schemaByDefinition(schema: SchemaRef, definition: String): Option[SchemaVersion] = {
    val subject = Subject(s"the version of ${schema.describe} with the definition given", BySchemaCheck)
    val request = json("SchemaId" -> schemaId(schema), "SchemaDefinition" -> definition)
    try
      Some(calls.call("GetSchemaByDefinition", request, subject) { answer =>
        SchemaVersion(
          uuid(answer, "SchemaVersionId"),
          text(answer, "SchemaArn"),
          text(answer, "DataFormat"),
          definition,
          SchemaVersion.UnknownNumber,
          text(answer, "Status"))
      })
    catch { case e: GlueRegistryException if e.kind == GlueRegistryException.NotFound => None }
  }

  override def registerSchemaVersion(schema: SchemaRef, definition: String): SchemaVersion = {
    val request = json("SchemaId" -> schemaId(schema), "SchemaDefinition" -> definition)
    val (id, number, status) = calls.call("RegisterSchemaVersion", request, Subject(schema.describe, BySchemaCheck)) {
      answer => (uuid(answer, "SchemaVersionId"), long(answer, "VersionNumber"), text(answer, "Status"))
    }
    if (status == SchemaVersion.Failure) throw failed(schema, number)
    settled(schema, id, number)
  }

  override def createSchema(schema: SchemaRef, dataFormat: String, definition: String): SchemaVersion = {
    val request = json(
      "RegistryId" -> json("RegistryName" -> schema.registryName),
      "SchemaName" -> schema.schemaName,
      "DataFormat" -> dataFormat,
      "Compatibility" -> "BACKWARD",
      "SchemaDefinition" -> definition
    )
    val created = calls.call("CreateSchema", request, Subject(schema.describe, CreateCheck)) { answer =>
      val number =
        if (answer.path("LatestSchemaVersion").canConvertToLong) answer.get("LatestSchemaVersion").asLong else 1L
      SchemaVersion(
        uuid(answer, "SchemaVersionId"),
        text(answer, "SchemaArn"),
        text(answer, "DataFormat"),
        definition,
        number,
        text(answer, "SchemaVersionStatus"))
    }
    created.status match {
      case SchemaVersion.Available => created
      case SchemaVersion.Failure => throw failed(schema, created.versionNumber)
      case _ => settled(schema, created.id, created.versionNumber)
    }
  }

  override def close(): Unit = if (closed.compareAndSet(false, true)) transport.close()

  override def toString: String = s"GlueRegistryClient(${calls.target})"

  /** The version `id` (of `schema`, number `number`) once it is no longer PENDING, if it is AVAILABLE then. */
  private def settled(schema: SchemaRef, id: UUID, number: Long): SchemaVersion = {
    val started = clock.nowMillis()
    var checks = 1
    var current = schemaVersion(id)
    while (current.status == SchemaVersion.Pending && checks < policy.pendingChecks) {
      clock.sleep(Backoff.jittered(Backoff.pauseAfter(checks, policy.minPendingPauseMs, policy.maxPendingPauseMs)))
      checks += 1
      current = schemaVersion(id)
    }
    current.status match {
      case SchemaVersion.Available => current
      case SchemaVersion.Failure => throw failed(schema, number)
      case SchemaVersion.Pending =>
        val seconds = (clock.nowMillis() - started) / 1000
        throw GlueRegistryErrors.versionNotAvailable(
          calls.target,
          schema.describe,
          number,
          SchemaVersion.Pending,
          s"it was still being registered after $checks checks over $seconds s. The registry checks a new version " +
            "against the schema's earlier ones before it makes it AVAILABLE: try again later."
        )
      case other =>
        throw GlueRegistryErrors.versionNotAvailable(
          calls.target,
          schema.describe,
          number,
          other,
          "it cannot be used to write records. Check it with `aws glue get-schema-version`.")
    }
  }

  private def failed(schema: SchemaRef, number: Long): GlueRegistryException =
    GlueRegistryErrors.versionNotAvailable(
      calls.target,
      schema.describe,
      number,
      SchemaVersion.Failure,
      "the registry did not accept it, most often because it breaks the schema's compatibility mode (BACKWARD " +
        "unless it was changed). Change the definition to keep to that mode, or change the schema's " +
        "compatibility in the registry."
    )

  /** A SchemaVersion from GetSchemaVersion's answer. */
  private def versionOf(answer: JsonNode): SchemaVersion =
    SchemaVersion(
      uuid(answer, "SchemaVersionId"),
      text(answer, "SchemaArn"),
      text(answer, "DataFormat"),
      text(answer, "SchemaDefinition"),
      long(answer, "VersionNumber"),
      text(answer, "Status")
    )
}

private[sparkkinesis] object GlueRegistryClient {

  /** What the User-Agent header starts with: the connector, and what the calls are for. */
  val UserAgent = "spark-kinesis/glue-registry"

  /** A client of the registry `config` names. No network I/O happens until the first call. */
  def create(config: GlueRegistryConfig): GlueRegistryApi =
    new GlueRegistryClient(new SdkGlueTransport(config, UserAgent), SystemClock)

  /**
   * How long a version being registered is waited for: at most `pendingChecks` GetSchemaVersion calls,
   * `minPendingPauseMs` doubled up to `maxPendingPauseMs` apart (about 15 s by default).
   */
  final case class Policy(
      calls: GlueCalls.Policy = GlueCalls.Policy(),
      pendingChecks: Int = 10,
      minPendingPauseMs: Long = 250,
      maxPendingPauseMs: Long = 2000)

  private val ByIdCheck =
    "The id comes from a record's header: the record was written with the schemas of another registry (in " +
      "another region or account) than the one called here, or its version has since been deleted. Check the " +
      "region and endpoint, and that the credentials are those of the account that holds the registry."

  private val BySchemaCheck =
    "Check the names of the registry and the schema, the region and endpoint, and that the credentials are " +
      "those of the account that holds the registry."

  private val CreateCheck =
    "A schema is created in a registry that exists: create it first (`aws glue create-registry " +
      "--registry-name NAME`), or check its name, the region and endpoint, and that the credentials are those " +
      "of the account that holds it."

  private def schemaId(schema: SchemaRef): ObjectNode =
    json("RegistryName" -> schema.registryName, "SchemaName" -> schema.schemaName)

  /** A JSON object of these fields, in this order: strings, numbers, booleans and objects. */
  private def json(fields: (String, Any)*): ObjectNode = {
    val node = JsonNodeFactory.instance.objectNode()
    fields.foreach {
      case (k, v: String) => node.put(k, v)
      case (k, v: Long) => node.put(k, v)
      case (k, v: Boolean) => node.put(k, v)
      case (k, v: ObjectNode) => node.replace(k, v)
      case (k, v) => throw new IllegalArgumentException(s"$k: ${v.getClass}")
    }
    node
  }

  private def field(answer: JsonNode, name: String): JsonNode = {
    val value = answer.get(name)
    if (value == null || value.isNull) throw new Unreadable(s"it has no $name: ${GlueCalls.excerpt(answer.toString)}")
    value
  }

  private def text(answer: JsonNode, name: String): String = {
    val value = field(answer, name)
    if (!value.isTextual) throw new Unreadable(s"its $name is not a string: $value")
    value.asText
  }

  private def long(answer: JsonNode, name: String): Long = {
    val value = field(answer, name)
    if (!value.canConvertToLong || !value.isIntegralNumber) throw new Unreadable(s"its $name is not a number: $value")
    value.asLong
  }

  private def uuid(answer: JsonNode, name: String): UUID = {
    val value = text(answer, name)
    try UUID.fromString(value)
    catch { case _: IllegalArgumentException => throw new Unreadable(s"its $name is not a UUID: $value") }
  }
}
