// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.IteratorStart
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.testing.{DefaultConfigs, FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

class PolledReadsSuite extends AnyFunSuite {

  private val config = DefaultConfigs.Reading.copy(minFetchPeriodMs = 400, maxRecordsPerFetch = 10)

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

  test("a throttled call halves the records asked for and rests 2.5 to 5 s, at random; readers so come back apart") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    val rests = (1 to 20).map { _ =>
      val reads = new PolledReads(
        api,
        ShardKey("s", shard),
        config,
        FetchCursor(None, 0L, 10),
        clock,
        throttleLog = new ThrottleLog(quietMs = 60000))
      api.throttleNextGetRecords = 1
      val at = clock.nowMillis()
      assert(reads.step(IteratorStart.TrimHorizon).isInstanceOf[ReadStep.Throttled])
      assert(reads.cursor.recordsPerCall == 5)
      reads.nextStepAt - at
    }
    assert(rests.forall(r => r >= PolledReads.ThrottlePauseMs / 2 && r <= PolledReads.ThrottlePauseMs), rests)
    assert(rests.distinct.size > 1, rests)
  }
}
