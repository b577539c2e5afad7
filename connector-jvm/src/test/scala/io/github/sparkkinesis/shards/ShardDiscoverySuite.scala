// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.shards

import io.github.sparkkinesis.health.KinesisHealth
import io.github.sparkkinesis.testing.{FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

/** How often the shards are listed: every `shardFetchInterval`, unless a listing takes many ListShards calls. */
class ShardDiscoverySuite extends AnyFunSuite {

  private def discovery(shards: Int, pageSize: Int = 100, intervalMs: Long = 1000) = {
    val clock = new ManualClock
    val api = new FakeKinesisApi(clock)
    api.createStream("s", shards)
    val health = new KinesisHealth("fake", "test", "listing shards", None, clock, _ => ())
    (new ShardDiscovery(api, Seq("s"), pageSize, intervalMs, clock, health), api, clock)
  }

  /** How many times the shards are listed in `seconds` of asking for them every 100 ms. */
  private def listingsIn(seconds: Int, shards: Int, pageSize: Int = 100): Int = {
    val (d, api, clock) = discovery(shards, pageSize)
    (1 to seconds * 10).foreach { _ =>
      assert(d.shards().size == shards)
      clock.advance(100)
    }
    api.calls("ListShards")
  }

  test("a stream of up to 2,000 shards is listed every shardFetchInterval") {
    assert(listingsIn(10, shards = 10) == 10)
    assert(listingsIn(10, shards = 2000) == 10)
  }

  test("a stream of 10,000 shards is listed every 5 s, 20 ListShards calls a second, whatever shardFetchInterval") {
    assert(listingsIn(30, shards = 10000) == 6)
    val (d, _, _) = discovery(10000)
    d.shards()
    assert(d.refreshIntervalMs == 5000)
    assert(ShardDiscovery.intervalFor(10000, pageSize = 1000, intervalMs = 1000) == 1000, "10 calls a listing")
    assert(ShardDiscovery.intervalFor(10000, pageSize = 100, intervalMs = 10000) == 10000, "a longer interval stays")
    assert(ShardDiscovery.intervalFor(10001, pageSize = 100, intervalMs = 1000) == 5050)
    assert(ShardDiscovery.intervalFor(100, pageSize = 100, intervalMs = 0) == 0, "one call: as given")
    assert(ShardDiscovery.intervalFor(101, pageSize = 100, intervalMs = 0) == 100, "two calls: 20 a second")
  }

  test("the interval follows the shards listed as the stream is resharded, closed shards too") {
    val (d, api, clock) = discovery(2000)
    val first = d.shards().keys.map(_.shardId).toSeq.sorted.take(100)
    assert(d.refreshIntervalMs == 1000)
    first.foreach(api.split("s", _)) // 100 parents, closed and still listed, and 200 children
    clock.advance(1000)
    assert(d.shards().size == 2200)
    assert(d.refreshIntervalMs == 1100)
  }
}
