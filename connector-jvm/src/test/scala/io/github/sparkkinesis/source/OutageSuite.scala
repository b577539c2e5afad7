// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.client.{KinesisApiException, ShardInfo}
import io.github.sparkkinesis.config.InitialPosition
import io.github.sparkkinesis.errors.{ErrorCondition, KinesisException}
import io.github.sparkkinesis.testing.{CredentialFailures, DelegatingKinesisApi, StopsFixtureStreams, StreamFixture}
import org.scalatest.concurrent.Eventually
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.time.{Seconds, Span}

/** Kinesis unreachable while a source runs, or when it starts: the query goes on, says so, and is bounded. */
class OutageSuite extends AnyFunSuite with StopsFixtureStreams with Eventually {

  implicit override val patienceConfig: PatienceConfig = PatienceConfig(timeout = Span(20, Seconds))

  private class Fixture(outageTimeoutMs: Option[Long], shardFetchIntervalMs: Long = 0)
      extends StreamFixture(
        InitialPosition.TrimHorizon,
        outageTimeoutMs = outageTimeoutMs,
        shardFetchIntervalMs = shardFetchIntervalMs) {
    val shard: String = api.createStream("s", 1).head
    def putAll(from: Int, until: Int): Unit = (from until until).foreach(i => api.put("s", shard, s"r$i"))
  }

  test("while Kinesis cannot be reached the query goes on and shows it; then it reads every record once") {
    val f = new Fixture(Some(600000))
    try goesOnAndRecovers(f)
    finally f.stream.stop()
  }

  private def goesOnAndRecovers(f: Fixture): Unit = {
    f.putAll(0, 10)
    val (before, offset) = f.readAll(f.initial, 10)
    assert(f.metrics.contains("avgMsBehindLatest"))
    f.api.down = true
    (1 to 30).foreach { _ =>
      f.clock.advance(10000)
      assert(f.latest(offset) == offset, "nothing moves while Kinesis cannot be reached")
    }
    val during = f.metrics
    assert(during("secondsSinceLastSuccessfulCall").toLong >= 290, during)
    assert(!during.contains("avgMsBehindLatest") && !during.contains("maxMsBehindLatest"), "no lag to show")
    f.api.down = false
    f.clock.advance(60000) // past the pause prefetching takes after failures
    f.putAll(10, 20)
    val (after, _) = f.readAll(offset, 10)
    assert((before ++ after).map(_._2) == (0 until 20).map(i => s"r$i"))
    assert(f.metrics("secondsSinceLastSuccessfulCall").toLong <= 10)
    assert(f.metrics.contains("avgMsBehindLatest"))
  }

  test("an outage longer than outageTimeout fails the query with KINESIS_UNAVAILABLE naming the stream") {
    val f = new Fixture(Some(60000))
    f.putAll(0, 3)
    val (_, offset) = f.readAll(f.initial, 3)
    f.api.down = true
    val e = intercept[KinesisException] {
      try {
        (1 to 100).foreach { _ =>
          f.clock.advance(5000)
          f.latest(offset)
        }
      } finally f.stream.stop()
    }
    assert(e.getCondition == "KINESIS_UNAVAILABLE", e.getMessage)
    assert(e.getMessage.contains("to read stream 's' has failed for 6"), e.getMessage)
    assert(e.getMessage.contains("The last failure: Connection refused"), e.getMessage)
  }

  test("STS out of reach for the role's credentials is an outage too: bounded by outageTimeout, naming STS") {
    val f = new Fixture(Some(60000))
    f.putAll(0, 3)
    val (_, offset) = f.readAll(f.initial, 3)
    f.api.failingWith = Some(CredentialFailures.unavailable(CredentialFailures.stsUnreachable))
    var asked = 0
    val e = intercept[KinesisException] {
      try {
        (1 to 100).foreach { _ =>
          f.clock.advance(5000)
          assert(f.latest(offset) == offset, "nothing moves while there are no credentials")
          asked += 1
        }
      } finally f.stream.stop()
    }
    assert(asked >= 10, s"the query went on for $asked calls before failing")
    assert(e.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE.OUTAGE", e.getMessage)
    assert(e.getMessage.contains(s"could not reach STS at ${CredentialFailures.Sts} (region us-east-1)"), e.getMessage)
    assert(e.getMessage.contains("longer than the option outageTimeout allows (1m)"), e.getMessage)
  }

  test("a role STS refuses fails the query at once, naming STS and the role") {
    val f = new Fixture(Some(600000))
    f.putAll(0, 3)
    val (_, offset) = f.readAll(f.initial, 3)
    f.api.failingWith = Some(CredentialFailures.unavailable(CredentialFailures.stsRefused))
    // The prefetcher meets the refusal on its own thread: give it real time, but far less than outageTimeout
    // on the query's clock (100 s of 600), so that only a failure at once passes.
    val e = intercept[KinesisException] {
      try {
        (1 to 100).foreach { _ =>
          f.clock.advance(1000)
          f.latest(offset)
          Thread.sleep(100)
        }
      } finally f.stream.stop()
    }
    assert(e.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE", e.getMessage)
    assert(e.getMessage.contains(s"STS at ${CredentialFailures.Sts} (region us-east-1) refused AssumeRole"))
  }

  test("an outage fails the query at outageTimeout though every offset asked for is the one before") {
    val f = new Fixture(Some(60000), shardFetchIntervalMs = 3600000)
    f.putAll(0, 3)
    val (_, offset) = f.readAll(f.initial, 3)
    f.api.down = true
    // Prefetching meets the outage first (the shards are listed once an hour).
    val jobs = f.runtime.jobsRun
    eventually(assert(f.runtime.jobsRun >= jobs + 2))
    var asked = 0
    val e = intercept[KinesisException] {
      try {
        (1 to 100).foreach { _ =>
          f.clock.advance(1000)
          assert(f.latest(offset) == offset)
          asked += 1
        }
      } finally f.stream.stop()
    }
    assert(e.getCondition == "KINESIS_UNAVAILABLE", e.getMessage)
    assert(asked >= 55 && asked <= 62, s"failed after $asked seconds of outage, not at the 60 s outageTimeout")
  }

  test("at start the shards are listed again until Kinesis answers, within outageTimeout") {
    val f = new Fixture(Some(60000))
    var failuresLeft = 3
    val flaky = new DelegatingKinesisApi(f.api) {
      override def listShards(stream: String, pageSize: Int): Seq[ShardInfo] = {
        if (failuresLeft > 0) {
          failuresLeft -= 1
          throw new KinesisApiException.Unreachable("Connection refused", null)
        }
        super.listShards(stream, pageSize)
      }
    }
    val stream =
      new KinesisMicroBatchStream(f.config, f.newStreams(flaky, queryId = None), f.clock, f.runtime, f.apis)
    assert(stream.initialOffset() != null && failuresLeft == 0)
    stream.stop()

    f.api.down = true
    val down = new KinesisMicroBatchStream(
      f.config,
      f.newStreams(checkpointAt = f.checkpoint + "-2", queryId = None),
      f.clock,
      f.runtime,
      f.apis)
    val e = intercept[KinesisException](
      try down.initialOffset()
      finally down.stop())
    assert(ErrorCondition.unapply(e).contains(ErrorCondition.Unavailable))
    assert(e.getMessage.contains("(no call has succeeded since"), e.getMessage)
  }
}
