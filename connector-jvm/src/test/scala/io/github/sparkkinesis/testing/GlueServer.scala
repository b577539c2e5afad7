// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.io.File

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.JsonNodeFactory

/**
 * A Glue Schema Registry endpoint for the registry client's tests: moto's server ([[MotoServer]]), from the
 * test virtual environment, on a free port of loopback. It records every request, so that a test can list
 * the calls Glue received ([[calls]]): which operations, with what. moto keeps a registry per region, the
 * one the signature's scope names: `region` is the one the fixture's own calls ([[createRegistry]], ...) use,
 * and the clients under test must use it too. Its output goes to connector-jvm/target/glue-server-<port>.log.
 */
final class GlueServer(root: File, val region: String = "us-east-1") {
  private val server = new MotoServer(root, "glue-server")
  private val mapper = new ObjectMapper()

  /** Starts the server and returns its endpoint once it listens and records. */
  def start(): String = server.start()

  def endpoint: String = server.endpoint

  def stop(): Unit = server.stop()

  /** Every call of Glue received since the start or the last [[clearCalls]], in order. */
  def calls(): Seq[GlueServer.Call] = server.recorded().flatMap { request =>
    request.header("X-Amz-Target").filter(_.startsWith("AWSGlue.")).map { target =>
      GlueServer.Call(target.stripPrefix("AWSGlue."), mapper.readTree(request.body), request)
    }
  }

  /** The operations of [[calls]], in order. */
  def actions(): Seq[String] = calls().map(_.action)

  /** Forgets the calls received so far. */
  def clearCalls(): Unit = server.clearRecording()

  /** Creates a registry (which the connector never does: a registry is the user's to make). */
  def createRegistry(name: String): Unit = call("CreateRegistry", "RegistryName" -> name)

  /**
   * Creates a schema with its first version, as the fixture's own call, not the client's under test; returns
   * the version's id.
   */
  def createSchema(registry: String, schema: String, dataFormat: String, definition: String): String = {
    val registryId = JsonNodeFactory.instance.objectNode().put("RegistryName", registry)
    call(
      "CreateSchema",
      "RegistryId" -> registryId,
      "SchemaName" -> schema,
      "DataFormat" -> dataFormat,
      "Compatibility" -> "BACKWARD",
      "SchemaDefinition" -> definition).get("SchemaVersionId").asText
  }

  /**
   * Makes an IAM user `name` allowed `actions` (`glue:GetSchemaVersion`, ...) on every resource, and returns
   * its access key's id and secret. Before [[enforceIam]]: IAM refuses the fixture's own calls after it.
   */
  def iamUser(name: String, actions: Seq[String]): (String, String) = {
    val allowed = actions.map(a => "\"" + a + "\"").mkString(",")
    server.iamUser(
      name,
      s"""{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":[$allowed],"Resource":"*"}]}""")
  }

  /**
   * From now on, checks every call as AWS does (a valid signature by a key IAM knows, allowed by its policy);
   * first makes an IAM user `name` allowed `actions`, as [[iamUser]], and returns its key. Set up what the
   * test needs before: the fixture's own calls are refused too from then on.
   */
  def enforceIam(name: String, actions: Seq[String]): (String, String) = {
    val key = iamUser(name, actions)
    server.enforceIam()
    key
  }

  /** From now on, checks every call as AWS does; make the users first ([[iamUser]]). */
  def enforceIam(): Unit = server.enforceIam()

  /** A call of the fixture's own; fails unless Glue answers 200. */
  private def call(action: String, fields: (String, Any)*): JsonNode = {
    val body = JsonNodeFactory.instance.objectNode()
    fields.foreach {
      case (k, v: String) => body.put(k, v)
      case (k, v: JsonNode) => body.replace(k, v)
      case (k, v) => throw new IllegalArgumentException(s"$k: $v")
    }
    val (status, answer) = server.unsigned(
      "glue",
      region,
      "application/x-amz-json-1.1",
      mapper.writeValueAsString(body),
      "X-Amz-Target" -> s"AWSGlue.$action")
    require(status == 200, s"Glue $action: $status $answer")
    mapper.readTree(answer)
  }
}

object GlueServer {

  /** A call Glue received: its operation (`GetSchemaVersion`, ...), its JSON request, and the request itself. */
  final case class Call(action: String, request: JsonNode, raw: MotoServer.Request)
}
