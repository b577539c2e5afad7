// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.Executors

import io.github.sparkkinesis.client.{KinesisApiException, PutRecord}
import io.github.sparkkinesis.errors.KinesisException
import io.github.sparkkinesis.testing.{CredentialFailures, FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.BeforeAndAfterAll

class RecordSenderSuite extends AnyFunSuite with BeforeAndAfterAll {

  private val requests = Executors.newFixedThreadPool(4)

  override def afterAll(): Unit = requests.shutdown()

  private class Fixture(maxInFlight: Int = 1, deadlineMs: Long = 60000, outageMs: Long = 600000) {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val shard: String = api.createStream("s", 1).head
    val sender = new RecordSender(
      api,
      SendSettings(maxInFlight, deadlineMs, Some(outageMs)),
      clock,
      requests,
      "partition 0 of epoch 1")

    def written: Seq[String] = api.records("s", shard).map(r => new String(r.data, UTF_8))
  }

  private def record(i: Int, payload: String = "") = PutRecord(s"key-${i % 7}", s"r$i$payload".getBytes(UTF_8))

  test("records go out in requests of at most 500, every one once, in order with one request at a time") {
    val f = new Fixture
    (1 to 1234).foreach(i => f.sender.add("s", record(i), 1, i))
    f.sender.flush()
    assert(f.written == (1 to 1234).map(i => s"r$i"))
    assert(f.api.putRequests.toSeq == Seq(500, 500, 234))
    assert(f.sender.counters.records.get == 1234)
    assert(f.sender.counters.bytes.get == (1 to 1234).map(i => s"r$i".length).sum)
  }

  test("a request holds at most 5 MiB") {
    val f = new Fixture(maxInFlight = 4)
    val big = "x" * (300 * 1024)
    (1 to 40).foreach(i => f.sender.add("s", record(i, big), 1, i))
    f.sender.flush()
    assert(f.written.sorted == (1 to 40).map(i => s"r$i$big").sorted)
    assert(f.api.putRequests.forall(_ <= 17) && f.api.putRequests.sum == 40, f.api.putRequests)
  }

  test("records Kinesis turns down, and requests it throttles, are sent again until written") {
    val f = new Fixture(maxInFlight = 4)
    f.api.turnDownNextPuts = 300
    f.api.throttleNextPutRequests = 2
    (1 to 1000).foreach(i => f.sender.add("s", record(i), 1, i))
    f.sender.flush()
    assert(f.written.sorted == (1 to 1000).map(i => s"r$i").sorted, "each record exactly once")
    assert(f.sender.counters.records.get == 1000)
    assert(f.sender.counters.retriedRecords.get >= 300)
    assert(f.sender.counters.throttledRequests.get >= 3)
  }

  test("records still turned down at the deadline fail the task, saying how many and why") {
    val f = new Fixture(deadlineMs = 10000)
    f.api.turnDownNextPuts = Int.MaxValue
    (1 to 20).foreach(i => f.sender.add("s", record(i), 1, i))
    val e = intercept[KinesisException](f.sender.flush())
    assert(e.getMessage.startsWith("[KINESIS_WRITE_FAILED] 20 of 20 records could not be written to stream 's'"))
    assert(e.getMessage.contains("20: ProvisionedThroughputExceededException"), e.getMessage)
    assert(f.written.isEmpty)
  }

  test("a stream that does not exist fails at once, as the source says it, naming the row") {
    val f = new Fixture
    f.sender.add("missing", record(1), 1, 1)
    val e = intercept[KinesisException](f.sender.flush())
    assert(e.getCondition == "KINESIS_STREAM_NOT_FOUND.WRITE")
    assert(e.getMessage.startsWith("[KINESIS_STREAM_NOT_FOUND.WRITE] Stream 'missing' was not found at fake-kinesis"))
    assert(e.getMessage.endsWith("at row 1 of partition 0 of epoch 1, partitionKey 'key-1'."), e.getMessage)
    assert(f.api.calls("PutRecords") == 1)
  }

  test("a request Kinesis refuses fails at once, naming the row Kinesis names, with the SDK's error as cause") {
    val f = new Fixture
    val refusal = new KinesisApiException.Rejected(
      "1 validation error detected: Value at 'records.3.member.partitionKey' failed to satisfy constraint",
      null)
    f.api.putRequestFailures += refusal
    (1 to 5).foreach(i => f.sender.add("s", record(i), 1, 10L + i))
    val e = intercept[KinesisException](f.sender.flush())
    assert(e.getCondition == "KINESIS_REQUEST_REJECTED.WRITE" && e.getSqlState == "42000")
    assert(e.getMessage.contains("Kinesis refused PutRecords on stream 's' at fake-kinesis"), e.getMessage)
    assert(e.getMessage.endsWith("at row 13 of partition 0 of epoch 1, partitionKey 'key-3'."), e.getMessage)
    assert(e.getCause eq refusal)
    assert(f.api.calls("PutRecords") == 1, "not retried")
    assert(f.written.isEmpty)
  }

  test("a refusal naming no record names the request's first row; a KMS key Kinesis cannot use is one") {
    val f = new Fixture
    f.api.putRequestFailures += new KinesisApiException.Rejected("The KMS key is disabled (KMSDisabledException)", null)
    (1 to 3).foreach(i => f.sender.add("s", record(i), 1, i.toLong))
    val e = intercept[KinesisException](f.sender.flush())
    assert(
      e.getMessage.endsWith(
        "at row 1 of partition 0 of epoch 1, partitionKey 'key-1', the first of the 3 records " +
          "of the request."),
      e.getMessage)
  }

  test("requests that fail with a 5xx, time out or find no connection are sent again until written") {
    val f = new Fixture
    f.api.putRequestFailures ++= Seq(
      new KinesisApiException.Failed("Service unavailable (Status Code: 503)", null),
      new KinesisApiException.Unreachable("Connection refused", null),
      new KinesisApiException.Failed("Read timed out", null)
    )
    (1 to 10).foreach(i => f.sender.add("s", record(i), 1, i.toLong))
    f.sender.flush()
    assert(f.written == (1 to 10).map(i => s"r$i"))
    assert(f.api.calls("PutRecords") == 4)
  }

  test("an outage is tried through for outageTimeout, not writeRetryTimeout: every record arrives once after it") {
    val f = new Fixture(deadlineMs = 10000)
    f.api.putRequestFailures ++= Seq.fill(20)(new KinesisApiException.Unreachable("Connection refused", null))
    (1 to 10).foreach(i => f.sender.add("s", record(i), 1, i.toLong))
    f.sender.flush()
    assert(f.clock.slept > 10000, "longer than writeRetryTimeout")
    assert(f.written == (1 to 10).map(i => s"r$i"))
  }

  test("STS out of reach for the role is an outage of the write, bounded by outageTimeout and naming STS") {
    val f = new Fixture(deadlineMs = 10000, outageMs = 60000)
    f.api.failingWith = Some(CredentialFailures.unavailable(CredentialFailures.stsUnreachable))
    (1 to 5).foreach(i => f.sender.add("s", record(i), 1, i.toLong))
    val e = intercept[KinesisException](f.sender.flush())
    assert(f.clock.slept >= 60000, "tried for outageTimeout, not writeRetryTimeout")
    assert(e.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE.OUTAGE", e.getMessage)
    assert(e.getMessage.contains("could not reach STS at http://127.0.0.1:9 (region us-east-1)"), e.getMessage)
  }

  test("a role STS refuses fails the write at once, naming the row") {
    val f = new Fixture
    f.api.failingWith = Some(CredentialFailures.unavailable(CredentialFailures.stsRefused))
    f.sender.add("s", record(1), 1, 1L)
    val e = intercept[KinesisException](f.sender.flush())
    assert(e.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE.WRITE", e.getMessage)
    assert(f.api.calls("PutRecords") == 1, "not tried again")
  }

  test("an outage longer than outageTimeout fails the task with KINESIS_UNAVAILABLE, as the source fails") {
    val f = new Fixture(deadlineMs = 10000, outageMs = 60000)
    f.api.down = true
    (1 to 5).foreach(i => f.sender.add("s", record(i), 1, i.toLong))
    val e = intercept[KinesisException](f.sender.flush())
    assert(e.getCondition == "KINESIS_UNAVAILABLE", e.getMessage)
    assert(e.getMessage.contains("to write to stream 's' has failed for 6"), e.getMessage)
    assert(e.getMessage.contains("The last failure: Connection refused."), e.getMessage)
  }
}
