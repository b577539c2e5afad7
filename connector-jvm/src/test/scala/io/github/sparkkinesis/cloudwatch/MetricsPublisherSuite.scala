// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import java.util.concurrent.{ConcurrentLinkedQueue, CountDownLatch, TimeUnit}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import io.github.sparkkinesis.testing.TestLog
import org.scalatest.funsuite.AnyFunSuite

class MetricsPublisherSuite extends AnyFunSuite {

  /** CloudWatch as a fake: takes, fails (keeping the data) or refuses the data, as `answer` says. */
  private final class FakeCloudWatch extends CloudWatchApi {
    @volatile var answer: (String => Unit) = (_: String) => ()
    val taken = new ConcurrentLinkedQueue[Seq[Double]]()
    val attempts = new java.util.concurrent.atomic.AtomicInteger()
    val closes = new java.util.concurrent.atomic.AtomicInteger()
    val callers = new ConcurrentLinkedQueue[Thread]()
    private val mapper = new ObjectMapper()
    override def putMetricData(body: String): Unit = {
      attempts.incrementAndGet()
      callers.add(Thread.currentThread())
      answer(body)
      taken.add(mapper.readTree(body).get("MetricData").elements().asScala.map(_.get("Value").asDouble).toSeq)
    }
    override def close(): Unit = closes.incrementAndGet()
    def values: Seq[Double] = taken.asScala.toSeq.flatten
  }

  private def data(from: Int, n: Int): Seq[MetricDatum] =
    (from until from + n).map(i => MetricDatum("numStreams", "Count", Seq("Query" -> "q", "Stream" -> "s"), i, 0L))

  private def publisher(api: CloudWatchApi, maxQueued: Int = 100, idleMs: Long = 300) =
    new MetricsPublisher("ns", () => api, maxQueued, idleMs, retryMinMs = 20, retryMaxMs = 40)

  private def eventually(what: String)(done: => Boolean): Unit = {
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10)
    while (!done) {
      if (System.nanoTime() > deadline) fail(s"timed out waiting for $what")
      Thread.sleep(10)
    }
  }

  /** Closes `p` and waits for its sender's end, so that nothing it logs lands in a later test's capture. */
  private def shutDown(p: MetricsPublisher): Unit = {
    p.close()
    eventually("the sender's end")(!p.sending)
  }

  test("a progress's data go in one call, from a daemon thread that ends when idle and starts again") {
    val api = new FakeCloudWatch
    val p = publisher(api)
    p.offer(data(0, 12))
    eventually("the call")(p.sent == 12)
    assert(api.taken.size == 1 && p.callsMade == 1)
    val caller = api.callers.peek()
    assert(caller.getName == MetricsPublisher.ThreadName && caller.isDaemon)
    eventually("the sender's end")(!p.sending)
    // The sender is no longer counted as such before it closes its client: an offer meanwhile starts another.
    eventually("the idle sender's client closed")(api.closes.get == 1)
    p.offer(data(12, 3))
    eventually("the next call")(p.sent == 15)
    assert(api.values == (0 until 15).map(_.toDouble))
    shutDown(p)
  }

  test("offering never waits for CloudWatch") {
    val api = new FakeCloudWatch
    val hold = new CountDownLatch(1)
    api.answer = _ => hold.await()
    val p = publisher(api, maxQueued = 50)
    val started = System.nanoTime()
    (0 until 1000).foreach(i => p.offer(data(i * 12, 12)))
    val ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
    assert(ms < 2000, s"1000 offers took $ms ms while CloudWatch hung")
    assert(p.queued <= 50)
    hold.countDown()
    shutDown(p)
  }

  test("while CloudWatch is out, data are kept up to the bound, the oldest dropped and counted; then sent") {
    val api = new FakeCloudWatch
    api.answer = _ => throw new CloudWatchFailure("http://127.0.0.1:1 could not be reached: refused", keepData = true)
    val p = publisher(api, maxQueued = 10)
    val logged = TestLog.during("CloudWatch out") {
      p.offer(data(0, 4))
      eventually("a failed call")(api.attempts.get >= 2)
      p.offer(data(4, 4))
      p.offer(data(8, 4))
      eventually("the overflow")(p.dropped == 2)
      api.answer = _ => ()
      eventually("the data kept")(p.sent == 10)
    }
    assert(api.values == (2 until 12).map(_.toDouble))
    assert(p.dropped == 2)
    val lines = logged.filter(_.contains("Kinesis metrics"))
    assert(lines.size == 2, lines.mkString("\n"))
    assert(lines.head.contains("WARN") && lines.head.contains("could not be reached: refused"), lines.head)
    assert(lines(1).contains("reach CloudWatch again") && lines(1).contains("2 data were dropped"), lines(1))
    shutDown(p)
  }

  test("data CloudWatch refuses are dropped, counted, not sent again") {
    val api = new FakeCloudWatch
    api.answer = _ => throw new CloudWatchFailure("answered 400 InvalidParameterValue: too old", keepData = false)
    val p = publisher(api)
    val logged = TestLog.during("CloudWatch refuses") {
      p.offer(data(0, 5))
      eventually("the drop")(p.dropped == 5)
      p.offer(data(5, 5))
      eventually("the second drop")(p.dropped == 10)
    }
    assert(api.attempts.get == 2 && p.sent == 0 && p.queued == 0)
    assert(logged.count(_.contains("Kinesis metrics are not reaching CloudWatch")) == 1)
    shutDown(p)
  }

  test("close makes one last attempt at what is queued, then the sender ends") {
    val api = new FakeCloudWatch
    val p = publisher(api, idleMs = 60000)
    p.offer(data(0, 3))
    eventually("the call")(p.sent == 3)
    p.close()
    eventually("the sender's end")(!p.sending)
    p.offer(data(3, 3))
    assert(p.queued == 0 && !p.sending)
  }
}
