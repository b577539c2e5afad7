// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.client.{KinesisApi, RecordBatch}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.testing.{DefaultConfigs, DelegatingKinesisApi, FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

/** The loop every mode reads shards with: which shard is called when, and what a failure leaves to its user. */
class FetchLoopSuite extends AnyFunSuite {

  private val config = DefaultConfigs.Reading.copy(minFetchPeriodMs = 400, maxRecordsPerFetch = 10)

  private class Fixture(shards: Int) {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val ids: Seq[String] = api.createStream("s", shards)
    val called = ArrayBuffer.empty[String]
    private val recording: KinesisApi = new DelegatingKinesisApi(api) {
      override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch = {
        called += shardId
        super.getRecords(stream, shardId, iterator, limit)
      }
    }
    def fetcher(id: String, from: ShardPosition = ShardPosition.TrimHorizon) =
      new ShardFetcher(recording, ShardFetchSpec.fresh(ShardKey("s", id), from, 10), config, clock)
    val loop = new FetchLoop(ids.map(fetcher(_)).toIndexedSeq, clock, "fake")
  }

  test("each call goes to the shard due first, and no shard sooner than its pacing allows") {
    val f = new Fixture(shards = 3)
    val started = f.clock.nowMillis()
    val calls = (1 to 9).map(_ => f.loop.callNext(Long.MaxValue) -> f.clock.nowMillis())
    assert(calls.map(_._1).forall(_.exists(_.isInstanceOf[FetchLoop.Called])))
    assert(f.called == Seq.fill(3)(f.ids).flatten, "in turn, as each comes due")
    assert(calls.map(_._2 - started) == Seq(0, 0, 0, 400, 400, 400, 800, 800, 800), "minFetchPeriod apart per shard")
  }

  test("nothing is called after until, when halted, or once every shard is stopped") {
    val f = new Fixture(shards = 2)
    f.loop.callNext(Long.MaxValue)
    f.loop.callNext(Long.MaxValue)
    assert(f.loop.callNext(f.clock.nowMillis() + 100).isEmpty, "both shards are due only in 400 ms")
    assert(f.loop.callNext(Long.MaxValue, halt = true).isEmpty)
    f.loop.stop(0)
    f.loop.stop(1)
    assert(f.loop.done)
    assert(f.loop.callNext(Long.MaxValue).isEmpty)
    assert(f.called.size == 2)
  }

  test("only shards ready for more are called") {
    val f = new Fixture(shards = 2)
    (1 to 3).foreach(_ => f.loop.callNext(Long.MaxValue, ready = _ == 1))
    assert(f.called == Seq(f.ids(1), f.ids(1), f.ids(1)))
  }

  test("a failed call is reported with how long the shard has failed; retryLater backs off, doubling") {
    val f = new Fixture(shards = 1)
    f.api.down = true
    val first = f.loop.callNext(Long.MaxValue)
    val FetchLoop.Failed(0, failure, _, 0) = first.get
    assert(failure.kind == FetchFailure.Transient)
    assert(f.loop.retryLater(0) == FetchLoop.RetryPauseMs)
    val FetchLoop.Failed(0, _, _, failingFor) = f.loop.callNext(Long.MaxValue).get
    assert(failingFor >= FetchLoop.RetryPauseMs, "the retry waited for its pause")
    assert(f.loop.retryLater(0) == 2 * FetchLoop.RetryPauseMs)
    f.api.down = false
    assert(f.loop.callNext(Long.MaxValue).contains(FetchLoop.Called(0)))
    f.api.down = true
    val FetchLoop.Failed(0, _, _, again) = f.loop.callNext(Long.MaxValue).get
    assert(again == 0, "a success in between starts the count over")
    assert(f.loop.retryLater(0) == FetchLoop.RetryPauseMs)
  }

  test("a shard read by another fetcher goes on from where it is") {
    val f = new Fixture(shards = 1)
    val seqs = (1 to 15).map(i => f.api.put("s", f.ids.head, s"r$i"))
    f.loop.callNext(Long.MaxValue)
    val position = f.loop.fetcher(0).position
    f.loop.replace(0, f.fetcher(f.ids.head, position))
    f.loop.callNext(Long.MaxValue)
    assert(f.loop.fetcher(0).records.map(_.sequenceNumber) == seqs.drop(10))
  }

  test("a task's threads: subscribed shards alone while a thread is left for the polled ones") {
    def lanes(subscribed: Int, polled: Int, threads: Int) =
      FetchLoop.lanes((1 to subscribed).map("e" + _) ++ (1 to polled).map("p" + _), threads)(_.startsWith("e"))
    assert(lanes(2, 3, 3) == Seq(Seq("e1"), Seq("e2"), Seq("p1", "p2", "p3")))
    assert(lanes(3, 0, 3) == Seq(Seq("e1"), Seq("e2"), Seq("e3")))
    assert(lanes(3, 1, 3) == Seq(Seq("e1"), Seq("e2"), Seq("e3", "p1")))
    assert(lanes(0, 5, 2) == Seq(Seq("p1", "p3", "p5"), Seq("p2", "p4")))
    assert(lanes(0, 0, 4).isEmpty)
  }
}
