package io.github.sparkkinesis.fetch

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.testing.{FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

class ShardTipProbeSuite extends AnyFunSuite {

  private val clock = new ManualClock()

  test("the end of a batch is the last record one call returns, at most maxRecordsPerFetch") {
    val api = new FakeKinesisApi(clock)
    val shard = api.createStream("s", 1).head
    val key = ShardKey("s", shard)
    val seqs = (1 to 25).map(i => api.put("s", shard, s"r$i"))
    val probe = new ShardTipProbe(api, maxRecordsPerFetch = 10, minIntervalMs = 200, clock)
    val first = probe.advance(key, ShardPosition.TrimHorizon)
    assert(first == ShardPosition.After(seqs(9)))
    assert(probe.advance(key, first) == first, "asked again within 200 ms: Kinesis is not called")
    clock.advance(200)
    val second = probe.advance(key, first)
    assert(second == ShardPosition.After(seqs(19)))
    clock.advance(200)
    assert(probe.advance(key, second) == ShardPosition.After(seqs(24)))
    assert(api.calls("GetShardIterator") == 1, "the iterator of one probe serves the next")
  }

  test("no new records leaves the position as it was") {
    val api = new FakeKinesisApi(clock)
    val shard = api.createStream("s", 1).head
    val key = ShardKey("s", shard)
    val seq = api.put("s", shard, "r")
    val probe = new ShardTipProbe(api, 10, minIntervalMs = 0, clock)
    assert(probe.advance(key, ShardPosition.After(seq)) == ShardPosition.After(seq))
    assert(
      probe.advance(key, ShardPosition.AtTimestamp(clock.nowMillis() + 1)) == ShardPosition.AtTimestamp(
        clock.nowMillis() + 1
      )
    )
  }

  test("a closed shard read to its end becomes ShardEnd, only after its last records") {
    val api = new FakeKinesisApi(clock)
    val shard = api.createStream("s", 1).head
    val key = ShardKey("s", shard)
    val seqs = (1 to 3).map(i => api.put("s", shard, s"r$i"))
    api.split("s", shard)
    val probe = new ShardTipProbe(api, 10, minIntervalMs = 0, clock)
    val tail = probe.advance(key, ShardPosition.TrimHorizon)
    assert(tail == ShardPosition.After(seqs.last))
    assert(probe.advance(key, tail) == ShardPosition.ShardEnd)
    assert(probe.advance(key, ShardPosition.ShardEnd) == ShardPosition.ShardEnd)
  }

  test("a position other than the cached one gets a fresh iterator") {
    val api = new FakeKinesisApi(clock)
    val shard = api.createStream("s", 1).head
    val key = ShardKey("s", shard)
    val seqs = (1 to 5).map(i => api.put("s", shard, s"r$i"))
    val probe = new ShardTipProbe(api, 2, minIntervalMs = 0, clock)
    probe.advance(key, ShardPosition.TrimHorizon)
    // A restarted batch may ask again from an older position: it must not continue from the cached iterator.
    assert(probe.advance(key, ShardPosition.TrimHorizon) == ShardPosition.After(seqs(1)))
    assert(probe.advance(key, ShardPosition.After(seqs(2))) == ShardPosition.After(seqs(4)))
  }

  test("an expired cached iterator is replaced") {
    val api = new FakeKinesisApi(clock)
    val shard = api.createStream("s", 1).head
    val key = ShardKey("s", shard)
    val seqs = (1 to 4).map(i => api.put("s", shard, s"r$i"))
    val probe = new ShardTipProbe(api, 2, minIntervalMs = 0, clock)
    val first = probe.advance(key, ShardPosition.TrimHorizon)
    api.expireIterators()
    assert(probe.advance(key, first) == ShardPosition.After(seqs(3)))
  }
}
