// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.client.IteratorStart
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.testing.{DefaultConfigs, FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

class PolledReadsSuite extends AnyFunSuite {

  private val config = DefaultConfigs.Prefetch.copy(minFetchPeriodMs = 400, maxRecordsPerFetch = 10)

  /** The pauses a shard's calls are paced at, each call made as soon as it is due. */
  private def pauses(reads: PolledReads, clock: ManualClock, calls: Int): Seq[Long] =
    (1 to calls).map { _ =>
      clock.advance(math.max(0, reads.nextStepAt - clock.nowMillis()))
      val at = clock.nowMillis()
      reads.step(IteratorStart.TrimHorizon)
      reads.nextStepAt - at
    }

  test("a quiet shard is called less and less often, up to its quiet period; a record brings it back") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    val start = FetchCursor(None, 0L, 10)
    val reads = new PolledReads(api, ShardKey("s", shard), config, start, clock, quietPeriodMs = 2000)
    assert(pauses(reads, clock, 6) == Seq(400, 800, 1600, 2000, 2000, 2000))
    // The next task goes on at the same pace, from the cursor the last one handed over.
    val next = new PolledReads(api, ShardKey("s", shard), config, reads.cursor, clock, quietPeriodMs = 2000)
    assert(pauses(next, clock, 1) == Seq(2000))
    api.put("s", shard, "news")
    assert(pauses(next, clock, 2) == Seq(400, 400), "a record ends the quiet")
  }

  test("a shard with a thread of its own is called every minFetchPeriod, quiet or not") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    val reads = new PolledReads(api, ShardKey("s", shard), config, FetchCursor(None, 0L, 10), clock)
    assert(pauses(reads, clock, 5).forall(_ == 400))
  }

  test("the quiet period grows with the shards a task's thread reads, up to two seconds") {
    def quiet(polled: Int, subscribed: Int = 0, shardsPerTask: Int = 5) = {
      val specs = (0 until polled + subscribed).map { i =>
        ShardFetchSpec(
          ShardKey("s", s"shardId-$i"),
          ShardPosition.TrimHorizon,
          FetchCursor(None, 0L, 10),
          consumerArn = if (i < subscribed) Some("arn:consumer") else None)
      }
      PrefetchTask.quietPeriodMs(specs, config.copy(shardsPerTask = shardsPerTask))
    }
    assert(quiet(4) == 400, "four shards on five threads: each alone")
    assert(quiet(10) == 800)
    assert(quiet(5, subscribed = 3) == 1200, "three subscribed shards take three of the five threads")
    assert(quiet(1000) == PrefetchTask.MaxQuietPeriodMs)
  }
}
