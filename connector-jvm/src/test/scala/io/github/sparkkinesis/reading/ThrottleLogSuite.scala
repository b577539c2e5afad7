// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.reading.ThrottleLog.{GoesOn, Quiet, Starts}
import org.scalatest.funsuite.AnyFunSuite

class ThrottleLogSuite extends AnyFunSuite {

  private val shard = ShardKey("s", "shardId-000000000000")
  private val t0 = 1700000000000L

  test("a shard's throttling is warned of when it starts, then summed up at most once a minute while it goes on") {
    val log = new ThrottleLog(quietMs = 60000)
    assert(log.throttled(shard, t0) == Starts)
    // Three queries throttled on the shard every second for a minute: quiet, then one summary of them all.
    val within = (1 until 60).flatMap(s => (1 to 3).map(_ => log.throttled(shard, t0 + s * 1000)))
    assert(within.forall(_ == Quiet))
    assert(log.throttled(shard, t0 + 60000) == GoesOn(within.size + 1L, 60000))
    assert(log.throttled(shard, t0 + 61000) == Quiet)
    assert(log.throttled(shard, t0 + 120000) == GoesOn(2, 60000))
  }

  test("after a minute without throttling, the shard's throttling starts anew") {
    val log = new ThrottleLog(quietMs = 60000)
    assert(log.throttled(shard, t0) == Starts)
    assert(log.throttled(shard, t0 + 30000) == Quiet)
    assert(log.throttled(shard, t0 + 89999) == GoesOn(2, 89999), "a minute since the last line, not the last call")
    assert(log.throttled(shard, t0 + 149999) == Starts)
  }

  test("each shard is warned of on its own") {
    val log = new ThrottleLog(quietMs = 60000)
    assert(log.throttled(ShardKey("s", "shardId-000000000000"), 0L) == Starts)
    assert(log.throttled(ShardKey("s", "shardId-000000000001"), 1L) == Starts)
    assert(log.throttled(ShardKey("t", "shardId-000000000000"), 2L) == Starts)
    assert(log.throttled(ShardKey("s", "shardId-000000000000"), 3L) == Quiet)
  }
}
