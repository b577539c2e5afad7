// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.concurrent.atomic.AtomicInteger
import java.util.UUID

import io.github.sparkkinesis.aws.{AwsCredentialsConfig, Secret}
import io.github.sparkkinesis.errors.GlueRegistryException
import io.github.sparkkinesis.testing.AwsStub
import io.github.sparkkinesis.testing.AwsStub.Answer
import org.scalatest.funsuite.AnyFunSuite

/**
 * The registry client's HTTP layer as it is in the jar (the SDK's Apache client and SigV4 signer), against a
 * stub Glue on loopback: the request as Glue's awsJson1.1 protocol has it, signed for `glue` in the
 * registry's region; answers of 5xx and throttling tried again, a refusal not.
 */
class SdkGlueTransportSuite extends AnyFunSuite {

  private val Id = UUID.fromString("0b7e4c1a-5d2f-4e3a-8b9c-1d2e3f4a5b6c")
  private val Version =
    s"""{"SchemaVersionId":"$Id","SchemaDefinition":"{}","DataFormat":"JSON",""" +
      """"SchemaArn":"arn:aws:glue:eu-west-1:123456789012:schema/r/s","VersionNumber":1,"Status":"AVAILABLE"}"""

  private def json(status: Int, body: String, headers: Map[String, String] = Map.empty) =
    Answer(status, body, Map("Content-Type" -> "application/x-amz-json-1.1") ++ headers)

  /** A stub answering the calls in turn with `answers` (the last one again once they run out). */
  private def withGlue(answers: Answer*)(test: (AwsStub, GlueRegistryApi) => Unit): Unit = {
    val n = new AtomicInteger()
    val stub = new AwsStub(_ => answers(math.min(n.getAndIncrement(), answers.size - 1)))
    val keys = AwsCredentialsConfig.StaticKeys("AKIDSTUBKEY00001", new Secret("stub-secret"), Some(new Secret("tok")))
    val client = GlueRegistryClient.create(GlueRegistryConfig("eu-west-1", Some(stub.endpoint), keys))
    try test(stub, client)
    finally {
      client.close()
      stub.close()
    }
  }

  test("a call is POST / in awsJson1.1, its operation in X-Amz-Target, signed for glue in the registry's region") {
    withGlue(json(200, Version)) { (stub, client) =>
      assert(client.schemaVersion(Id).dataFormat == "JSON")
      val Seq(request) = stub.requests
      assert(request.method == "POST" && request.path == "/")
      assert(request.headers("content-type") == "application/x-amz-json-1.1")
      assert(request.headers("x-amz-target") == "AWSGlue.GetSchemaVersion")
      assert(request.body == s"""{"SchemaVersionId":"$Id"}""")
      val authorization = request.headers("authorization")
      assert(
        authorization.matches("AWS4-HMAC-SHA256 Credential=AKIDSTUBKEY00001/\\d{8}/eu-west-1/glue/aws4_request, .*"),
        authorization)
      assert(request.headers.contains("x-amz-date") && request.headers("x-amz-security-token") == "tok")
      assert(request.headers("user-agent").startsWith("spark-kinesis/glue-registry aws-sdk-java/"))
    }
  }

  test("5xx and throttling answers are tried again; the call succeeds when Glue answers") {
    withGlue(
      json(500, """{"__type":"InternalServiceException","message":"Internal failure"}"""),
      json(400, """{"__type":"ThrottlingException","message":"Rate exceeded"}"""),
      json(200, Version)
    ) { (stub, client) =>
      assert(client.schemaVersion(Id).id == Id)
      assert(stub.requests.size == 3)
    }
  }

  test("a refusal is not tried again; its code may come in the X-Amzn-ErrorType header alone") {
    withGlue(json(400, """{"__type":"InvalidInputException","message":"Bad."}""")) { (stub, client) =>
      val e = intercept[GlueRegistryException](client.schemaVersion(Id))
      assert(e.kind == GlueRegistryException.Refused && stub.requests.size == 1)
    }
    withGlue(
      json(
        400,
        """{"message":"Schema version is not found."}""",
        Map("X-Amzn-ErrorType" -> "EntityNotFoundException:http://internal.amazon.com/coral/com.amazonaws.glue/")
      )) { (stub, client) =>
      val e = intercept[GlueRegistryException](client.schemaVersion(Id))
      assert(e.kind == GlueRegistryException.NotFound && stub.requests.size == 1)
      assert(e.getMessage.contains("GetSchemaVersion answered Schema version is not found."), e.getMessage)
    }
  }
}
