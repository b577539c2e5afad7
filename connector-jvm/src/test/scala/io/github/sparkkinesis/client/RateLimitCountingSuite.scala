// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.ConcurrentLinkedQueue

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, Secret}
import io.github.sparkkinesis.testing.AwsStub
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.BeforeAndAfterAll
import software.amazon.awssdk.thirdparty.jackson.dataformat.cbor.{CBORFactory, CBORGenerator}

/**
 * AWS' throttling answers are counted per attempt, the SDK's own retries included, for the caller whose
 * view of a shared client made the call: a local endpoint answers as Kinesis does (CBOR bodies, an error's
 * code in `__type`, the `x-amzn-ErrorType` header or not), one planned answer per request.
 */
class RateLimitCountingSuite extends AnyFunSuite with BeforeAndAfterAll {
  import RateLimitCountingSuite._

  /** The answers still to give, in order; a request with none left gets an empty GetRecords answer. */
  private val planned = new ConcurrentLinkedQueue[Answer]()
  private val requests = new java.util.concurrent.atomic.AtomicInteger()

  private lazy val server = new AwsStub({ _ =>
    requests.incrementAndGet()
    val answer = Option(planned.poll()).getOrElse(Records)
    AwsStub.Answer(
      answer.status,
      answer.body,
      Map("Content-Type" -> "application/x-amz-cbor-1.1") ++ answer.header.map("x-amzn-ErrorType" -> _))
  })

  /** One client, as an executor's tasks share it. */
  private lazy val shared = KinesisClientFactory.create(
    AwsConfig("us-east-1", Some(server.endpoint), AwsCredentialsConfig.StaticKeys("test", new Secret("test"), None)),
    ClientUse.Reading
  )

  override protected def afterAll(): Unit =
    try {
      shared.close()
      server.close()
    } finally super.afterAll()

  private def answering(answers: Answer*): Unit = {
    planned.clear()
    answers.foreach(planned.add)
    requests.set(0)
  }

  test("a throttled GetRecords reaches its caller at once, counted once; the SDK retries a 5xx answer") {
    answering(Throttled(ProvisionedThroughput, header = false), Records)
    val errors = new RateLimitErrors
    val api = shared.counting(errors)
    intercept[KinesisApiException.Throttled](api.getRecords("s", "shardId-000000000000", "iterator", 10))
    assert(requests.get == 1, "the reader's pacing answers throttling, not the SDK")
    assert(errors.total == 1)
    answering(Answer(500, None, error("InternalFailure")), Records)
    assert(api.getRecords("s", "shardId-000000000000", "iterator", 10).nextIterator.contains("next"))
    assert(requests.get == 2, "the SDK sent the call again by itself")
    assert(errors.total == 1)
  }

  test(
    "other calls keep the SDK's retries on throttling; every throttled attempt counts, the code in a header or the body") {
    answering(
      Throttled(ProvisionedThroughput, header = true),
      Throttled(ProvisionedThroughput, header = false),
      IteratorAnswer)
    val errors = new RateLimitErrors
    assert(shared.counting(errors).getShardIterator("s", "shardId-000000000000", IteratorStart.TrimHorizon) == "it")
    assert(requests.get == 3)
    assert(errors.total == 2)
  }

  test("a throttling answer the call fails with counts, as does 429; other refusals do not") {
    val errors = new RateLimitErrors
    val api = shared.counting(errors)
    answering(Throttled("LimitExceededException", header = false))
    intercept[KinesisApiException.Throttled](api.listShards("s", 100))
    assert(errors.total == 1)
    answering(Answer(429, None, error("SomethingElse")), Records)
    intercept[KinesisApiException.Throttled](api.getRecords("s", "shardId-000000000000", "iterator", 10))
    assert(errors.total == 2)
    answering(Answer(400, None, error("ResourceNotFoundException")))
    intercept[KinesisApiException.ResourceNotFound](api.describeStream("s"))
    answering(Answer(400, Some("ValidationException"), error("ValidationException")))
    intercept[KinesisApiException.Rejected](api.describeStream("s"))
    assert(errors.total == 2)
  }

  test("callers sharing a client count only the throttling answers to their own calls") {
    val first = new RateLimitErrors
    val second = new RateLimitErrors
    answering(Throttled(ProvisionedThroughput, header = false), IteratorAnswer)
    shared.counting(first).getShardIterator("s", "shardId-000000000000", IteratorStart.TrimHorizon)
    answering(IteratorAnswer)
    shared.counting(second).getShardIterator("s", "shardId-000000000001", IteratorStart.TrimHorizon)
    answering(Throttled(ProvisionedThroughput, header = false), IteratorAnswer)
    shared.getShardIterator("s", "shardId-000000000002", IteratorStart.TrimHorizon)
    assert(first.total == 1)
    assert(second.total == 0, "nor does a caller that keeps no count add to anyone's")
  }

  test("an error answer's code is found in a JSON or a CBOR body, with or without a namespace") {
    assert(RateLimitCounting.errorType(error(ProvisionedThroughput)).contains(ProvisionedThroughput))
    assert(RateLimitCounting.errorType(error("KMSThrottlingException")).contains("KMSThrottlingException"))
    val json = """{"__type" : "com.amazonaws.kinesis.v20131202#LimitExceededException", "message":"x"}"""
    assert(RateLimitCounting.errorType(json.getBytes(UTF_8)).contains("LimitExceededException"))
    assert(RateLimitCounting.errorType("""{"message":"no type"}""".getBytes(UTF_8)).isEmpty)
    assert(RateLimitCounting.errorType(Array.emptyByteArray).isEmpty)
  }
}

private object RateLimitCountingSuite {
  final case class Answer(status: Int, header: Option[String], body: Array[Byte])

  val ProvisionedThroughput = "ProvisionedThroughputExceededException"

  private val cbor = new CBORFactory()

  private def write(fields: CBORGenerator => Unit): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val g = cbor.createGenerator(out)
    g.writeStartObject()
    fields(g)
    g.writeEndObject()
    g.close()
    out.toByteArray
  }

  /** An error answer's body as Kinesis writes it for the SDK. */
  def error(code: String): Array[Byte] = write { g =>
    g.writeStringField("__type", code)
    g.writeStringField("message", s"Rate exceeded ($code)")
  }

  def Throttled(code: String, header: Boolean): Answer = Answer(400, if (header) Some(code) else None, error(code))

  /** A GetShardIterator answer. */
  val IteratorAnswer: Answer = Answer(200, None, write(g => g.writeStringField("ShardIterator", "it")))

  /** An empty GetRecords answer. */
  val Records: Answer = Answer(
    200,
    None,
    write { g =>
      g.writeFieldName("Records")
      g.writeStartArray()
      g.writeEndArray()
      g.writeStringField("NextShardIterator", "next")
      g.writeNumberField("MillisBehindLatest", 0L)
    }
  )
}
