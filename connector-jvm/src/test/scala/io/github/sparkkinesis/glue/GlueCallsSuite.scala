// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.io.IOException
import java.net.ConnectException
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.UUID

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.aws.{AwsCredentialsConfig, CredentialsFailure, Secret}
import io.github.sparkkinesis.errors.GlueRegistryException
import io.github.sparkkinesis.testing.ManualClock
import org.scalatest.funsuite.AnyFunSuite

/**
 * What the registry client makes of each answer, over a fake HTTP layer and a manual clock: what it tries
 * again (no connection, 5xx, throttling, an answer that is not Glue's, credentials out of reach for now) and
 * how many times, what fails at once (every other refusal), and how long it waits for a version PENDING.
 */
class GlueCallsSuite extends AnyFunSuite {

  private val SecretKey = "fake-secret-key-never-shown"
  private val keys = AwsCredentialsConfig.StaticKeys("AKIDFAKEKEY12345", new Secret(SecretKey), None)
  private val Target = "http://glue.test (region us-east-1)"
  private val Id = UUID.fromString("6f1c7b4e-2a3d-4c5b-9e8f-0a1b2c3d4e5f")
  private val Arn = "arn:aws:glue:us-east-1:123456789012:schema/payments/orders"
  private val Orders = SchemaRef("payments", "orders")

  /**
   * A Glue that answers each call with the next of `answers` (the last one again once they run out), each
   * an answer or a failure to throw, and keeps the operations it was sent. Sending takes `callMillis` of
   * the manual clock.
   */
  private final class FakeGlue(answers: Seq[Either[Throwable, GlueResponse]], callMillis: Long = 0)
      extends GlueTransport {
    val clock = new ManualClock()
    private val sent = new ConcurrentLinkedQueue[(String, String)]()
    @volatile var closed = 0

    override def target: String = Target
    override def credentials: AwsCredentialsConfig = keys
    override def send(operation: String, body: String): GlueResponse = {
      val answer = answers(math.min(sent.size, answers.size - 1))
      sent.add(operation -> body)
      clock.advance(callMillis)
      answer.fold(e => throw e, identity)
    }
    override def close(): Unit = closed += 1

    def operations: Seq[String] = sent.asScala.map(_._1).toSeq
    def bodies: Seq[String] = sent.asScala.map(_._2).toSeq
    def client = new GlueRegistryClient(this, clock)
  }

  private def ok(body: String) = Right(GlueResponse(200, body))
  private def error(status: Int, code: String, message: String) =
    Right(GlueResponse(status, s"""{"__type":"com.amazonaws.glue#$code","message":"$message"}"""))

  private def version(status: String, number: Long = 2) =
    ok(
      s"""{"SchemaVersionId":"$Id","SchemaDefinition":"{}","DataFormat":"AVRO","SchemaArn":"$Arn",""" +
        s""""VersionNumber":$number,"Status":"$status","CreatedTime":1.7E9}""")

  private def failure(body: => Any): GlueRegistryException = {
    val e = intercept[GlueRegistryException](body)
    val text = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.toString).mkString("\n")
    assert(!text.contains(SecretKey), text)
    e
  }

  test("an answer is read into the schema version it describes, with the request in Glue's JSON form") {
    val glue = new FakeGlue(Seq(version("AVAILABLE")))
    val v = glue.client.schemaVersion(Orders, Some(2L))
    assert(v == SchemaVersion(Id, Arn, "AVRO", "{}", 2, "AVAILABLE"))
    assert(glue.operations == Seq("GetSchemaVersion"))
    assert(
      glue.bodies == Seq(
        """{"SchemaId":{"RegistryName":"payments","SchemaName":"orders"},"SchemaVersionNumber":{"VersionNumber":2}}"""))
    assert(glue.clock.slept == 0)
  }

  test("5xx, throttling and no connection are tried again, with a backoff between attempts") {
    Seq(
      error(500, "InternalServiceException", "Internal failure"),
      error(400, "ThrottlingException", "Rate exceeded"),
      Right(GlueResponse(429, "Too many requests")),
      Right(GlueResponse(503, "<html>Service Unavailable</html>")),
      Left(new ConnectException("Connection refused"))
    ).foreach { transient =>
      val glue = new FakeGlue(Seq(transient, transient, version("AVAILABLE")))
      assert(glue.client.schemaVersion(Id).id == Id)
      assert(glue.operations == Seq.fill(3)("GetSchemaVersion"), transient)
      assert(glue.clock.slept >= 100 + 200, "jittered pauses of 200 ms, then 400 ms, at least half each")
    }
  }

  test("after 4 attempts, Unreachable: how many, over how long, and the last failure, naming the version") {
    val glue = new FakeGlue(Seq(error(503, "ServiceUnavailableException", "Slow down")), callMillis = 1000)
    val e = failure(glue.client.schemaVersion(Id))
    assert(glue.operations.size == 4)
    assert(e.kind == GlueRegistryException.Unreachable && e.getCondition == "KINESIS_GLUE_REGISTRY_UNREACHABLE")
    assert(e.getMessageParameters.asScala("attempts") == "4 attempts")
    assert(
      e.getMessage.startsWith(
        s"[KINESIS_GLUE_REGISTRY_UNREACHABLE] Could not get an answer from the AWS Glue Schema Registry at $Target " +
          s"to GetSchemaVersion for schema version $Id: 4 attempts over "),
      e.getMessage
    )
    assert(e.getMessage.contains("failed, the last with: HTTP 503 ServiceUnavailableException: Slow down."))
  }

  test("no attempt begins once 20 s have passed since the first: a registry that never answers fails in time") {
    val glue = new FakeGlue(Seq(Left(new java.net.SocketTimeoutException("Read timed out"))), callMillis = 30000)
    val e = failure(glue.client.schemaVersion(Id))
    assert(glue.operations.size == 1 && e.kind == GlueRegistryException.Unreachable)
    assert(e.getMessage.contains("1 attempt over 30.0 s failed, the last with: SocketTimeoutException: Read timed out"))
  }

  test("refusals fail at once, each of its kind, with AWS' words") {
    val cases = Seq(
      error(400, "EntityNotFoundException", "Schema version is not found.") -> GlueRegistryException.NotFound,
      error(400, "InvalidInputException", "Bad id.") -> GlueRegistryException.Refused,
      error(400, "AlreadyExistsException", "Schema already exists.") -> GlueRegistryException.AlreadyExists,
      error(400, "ResourceNumberLimitExceededException", "Too many.") -> GlueRegistryException.Refused,
      Right(GlueResponse(403, "Forbidden")) -> GlueRegistryException.AccessDenied,
      error(400, "AccessDeniedException", "User: arn:aws:iam::1:user/u is not authorized to perform: x") ->
        GlueRegistryException.AccessDenied,
      error(400, "UnrecognizedClientException", "The security token included in the request is invalid.") ->
        GlueRegistryException.AccessDenied,
      error(400, "ExpiredTokenException", "The security token included in the request is expired") ->
        GlueRegistryException.AccessDenied
    )
    cases.foreach { case (answer, kind) =>
      val glue = new FakeGlue(Seq(answer))
      val e = failure(glue.client.schemaVersion(Id))
      assert(glue.operations.size == 1 && glue.clock.slept == 0, answer)
      assert(e.kind == kind, e.getMessage)
      assert(e.getMessage.contains(Target) && e.getMessage.contains(Id.toString), e.getMessage)
    }
    val refused = failure(new FakeGlue(Seq(error(400, "InvalidInputException", "Bad id."))).client.schemaVersion(Id))
    assert(
      refused.getMessage.contains(s"refused GetSchemaVersion for schema version $Id: InvalidInputException: Bad id."))
    val denied = failure(new FakeGlue(Seq(cases(5)._1)).client.schemaVersion(Id))
    assert(denied.getMessage.contains("denied glue:GetSchemaVersion on schema version"), denied.getMessage)
    assert(denied.getMessage.contains(" to arn:aws:iam::1:user/u. "), denied.getMessage)
    val token = failure(new FakeGlue(Seq(cases(6)._1)).client.schemaVersion(Id))
    assert(token.getCondition == "KINESIS_GLUE_REGISTRY_CREDENTIALS")
    assert(token.getMessage.contains(s"Glue at $Target did not accept the keys given as awsAccessKey (AKID...2345)"))
  }

  test("credentials: none to be had fails at once; their source out of reach is tried again, then said") {
    val missing = new CredentialsFailure(
      CredentialsFailure.Missing,
      "the chain found none",
      "nothing set",
      "Set some.",
      false,
      null)
    val glue = new FakeGlue(Seq(Left(missing)))
    val e = failure(glue.client.schemaVersion(Id))
    assert(glue.operations.size == 1 && e.kind == GlueRegistryException.AccessDenied)
    assert(
      e.getMessage == s"[KINESIS_GLUE_REGISTRY_CREDENTIALS] The connector has no AWS credentials to call the AWS Glue " +
        s"Schema Registry at $Target with, for schema version $Id: the chain found none: nothing set. Set some.")

    val outage =
      new CredentialsFailure(
        CredentialsFailure.Unreachable,
        "could not reach STS",
        "timed out",
        "Check STS.",
        false,
        null)
    val sts = new FakeGlue(Seq(Left(outage)))
    val u = failure(sts.client.schemaVersion(Id))
    assert(sts.operations.size == 4 && u.kind == GlueRegistryException.Unreachable)
    assert(u.getCondition == "KINESIS_GLUE_REGISTRY_CREDENTIALS" && u.getMessage.contains("could not reach STS"))
  }

  test("an answer that is not Glue's is tried again, then Unreachable, quoting its start") {
    val glue = new FakeGlue(Seq(ok("<html><body>Sign in to the proxy</body></html>")))
    val e = failure(glue.client.schemaVersion(Id))
    assert(glue.operations.size == 4 && e.kind == GlueRegistryException.Unreachable)
    assert(e.getMessage.contains("HTTP 200 with an answer that is not Glue's: <html><body>Sign in"), e.getMessage)
    val partial = new FakeGlue(Seq(ok(s"""{"SchemaVersionId":"$Id"}""")))
    assert(failure(partial.client.schemaVersion(Id)).getMessage.contains("it has no SchemaArn"))
  }

  test("a version registered PENDING is asked for again until AVAILABLE") {
    val glue = new FakeGlue(
      Seq(
        ok(s"""{"SchemaVersionId":"$Id","VersionNumber":2,"Status":"PENDING"}"""),
        version("PENDING"),
        version("PENDING"),
        version("AVAILABLE")))
    val v = glue.client.registerSchemaVersion(Orders, "{}")
    assert(v.available && v.versionNumber == 2)
    assert(glue.operations == "RegisterSchemaVersion" +: Seq.fill(3)("GetSchemaVersion"))
    assert(glue.bodies.tail.forall(_ == s"""{"SchemaVersionId":"$Id"}"""))
  }

  test("a version the registry fails, or that stays PENDING, is NotAvailable, naming the schema and version") {
    val failed = new FakeGlue(Seq(ok(s"""{"SchemaVersionId":"$Id","VersionNumber":3,"Status":"FAILURE"}""")))
    val f = failure(failed.client.registerSchemaVersion(Orders, "{}"))
    assert(failed.operations == Seq("RegisterSchemaVersion"))
    assert(
      f.kind == GlueRegistryException.NotAvailable && f.getCondition == "KINESIS_GLUE_SCHEMA_VERSION_NOT_AVAILABLE")
    assert(
      f.getMessage.startsWith(
        s"[KINESIS_GLUE_SCHEMA_VERSION_NOT_AVAILABLE] Version 3 of schema 'orders' of registry 'payments' in the " +
          s"AWS Glue Schema Registry at $Target is FAILURE, not AVAILABLE: the registry did not accept it"),
      f.getMessage
    )

    val later =
      new FakeGlue(Seq(ok(s"""{"SchemaVersionId":"$Id","VersionNumber":2,"Status":"PENDING"}"""), version("FAILURE")))
    assert(failure(later.client.registerSchemaVersion(Orders, "{}")).getMessage.contains("is FAILURE, not AVAILABLE"))

    val stuck =
      new FakeGlue(Seq(ok(s"""{"SchemaVersionId":"$Id","VersionNumber":2,"Status":"PENDING"}"""), version("PENDING")))
    val p = failure(stuck.client.registerSchemaVersion(Orders, "{}"))
    assert(stuck.operations == "RegisterSchemaVersion" +: Seq.fill(10)("GetSchemaVersion"))
    assert(p.kind == GlueRegistryException.NotAvailable && p.getMessage.contains("is PENDING, not AVAILABLE"))
    assert(p.getMessage.contains("still being registered after 10 checks"), p.getMessage)
  }

  test("a schema created PENDING is waited for as a version registered is") {
    val created =
      s"""{"SchemaArn":"$Arn","DataFormat":"AVRO","LatestSchemaVersion":1,"SchemaVersionId":"$Id",""" +
        """"SchemaVersionStatus":"PENDING"}"""
    val glue = new FakeGlue(Seq(ok(created), version("AVAILABLE", number = 1)))
    val v = glue.client.createSchema(Orders, "AVRO", "{}")
    assert(v.available && v.versionNumber == 1 && glue.operations == Seq("CreateSchema", "GetSchemaVersion"))
  }

  test("the error an IOException of no answer makes is serializable, its cause a plain copy") {
    val glue = new FakeGlue(Seq(Left(new IOException("Broken pipe"))))
    val e = failure(glue.client.schemaVersion(Id))
    val bytes = new java.io.ByteArrayOutputStream()
    new java.io.ObjectOutputStream(bytes).writeObject(e)
    val back = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray))
      .readObject()
      .asInstanceOf[GlueRegistryException]
    assert(back.kind == GlueRegistryException.Unreachable && back.getMessage == e.getMessage)
  }

  test("close closes the HTTP layer, once however often it is called") {
    val glue = new FakeGlue(Seq(version("AVAILABLE")))
    val client = glue.client
    client.close()
    client.close()
    assert(glue.closed == 1)
  }
}
