package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.Executors

import io.github.sparkkinesis.client.PutRecord
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.testing.{FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.BeforeAndAfterAll

class RecordSenderSuite extends AnyFunSuite with BeforeAndAfterAll {

  private val requests = Executors.newFixedThreadPool(4)

  override def afterAll(): Unit = requests.shutdown()

  private class Fixture(maxInFlight: Int = 1, deadlineMs: Long = 60000) {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val shard: String = api.createStream("s", 1).head
    val sender = new RecordSender(api, SendSettings(maxInFlight, deadlineMs), clock, requests)

    def written: Seq[String] = api.records("s", shard).map(r => new String(r.data, UTF_8))
  }

  private def record(i: Int, payload: String = "") = PutRecord(s"key-${i % 7}", s"r$i$payload".getBytes(UTF_8))

  test("records go out in requests of at most 500, every one once, in order with one request at a time") {
    val f = new Fixture
    (1 to 1234).foreach(i => f.sender.add("s", record(i)))
    f.sender.flush()
    assert(f.written == (1 to 1234).map(i => s"r$i"))
    assert(f.api.putRequests.toSeq == Seq(500, 500, 234))
    assert(f.sender.counters.records.get == 1234)
    assert(f.sender.counters.bytes.get == (1 to 1234).map(i => s"r$i".length).sum)
  }

  test("a request holds at most 5 MiB") {
    val f = new Fixture(maxInFlight = 4)
    val big = "x" * (300 * 1024)
    (1 to 40).foreach(i => f.sender.add("s", record(i, big)))
    f.sender.flush()
    assert(f.written.sorted == (1 to 40).map(i => s"r$i$big").sorted)
    assert(f.api.putRequests.forall(_ <= 17) && f.api.putRequests.sum == 40, f.api.putRequests)
  }

  test("records Kinesis turns down, and requests it throttles, are sent again until written") {
    val f = new Fixture(maxInFlight = 4)
    f.api.turnDownNextPuts = 300
    f.api.throttleNextPutRequests = 2
    (1 to 1000).foreach(i => f.sender.add("s", record(i)))
    f.sender.flush()
    assert(f.written.sorted == (1 to 1000).map(i => s"r$i").sorted, "each record exactly once")
    assert(f.sender.counters.records.get == 1000)
    assert(f.sender.counters.retriedRecords.get >= 300)
    assert(f.sender.counters.throttledRequests.get >= 3)
  }

  test("records still turned down at the deadline fail the task, saying how many and why") {
    val f = new Fixture(deadlineMs = 10000)
    f.api.turnDownNextPuts = Int.MaxValue
    (1 to 20).foreach(i => f.sender.add("s", record(i)))
    val e = intercept[KinesisConnectorException](f.sender.flush())
    assert(e.getMessage.startsWith("[KINESIS_WRITE_FAILED] 20 of 20 records could not be written to stream 's'"))
    assert(e.getMessage.contains("20: ProvisionedThroughputExceededException"), e.getMessage)
    assert(f.written.isEmpty)
  }

  test("a stream that does not exist fails at once, without retrying") {
    val f = new Fixture
    f.sender.add("missing", record(1))
    val e = intercept[KinesisConnectorException](f.sender.flush())
    assert(e.getMessage.contains("1 of 1 records could not be written to stream 'missing' after 1 attempts"))
    assert(f.api.calls("PutRecords") == 1)
  }
}
