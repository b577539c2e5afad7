// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.offsets.ShardKey
import org.scalatest.funsuite.AnyFunSuite

class ThrottleLogSuite extends AnyFunSuite {

  test("a shard's throttling is warned of when it starts, then at most once a quiet period, with the count between") {
    val log = new ThrottleLog(quietMs = 60000)
    val shard = ShardKey("s", "shardId-000000000000")
    val t0 = 1700000000000L
    assert(log.throttled(shard, t0).contains(0L), "the first throttled call warns")
    // Three queries throttled on the shard every second for a minute: no further warning within it.
    val within = (1 until 60).flatMap(s => (1 to 3).map(_ => log.throttled(shard, t0 + s * 1000)))
    assert(within.forall(_.isEmpty))
    assert(log.throttled(shard, t0 + 60000).contains(within.size.toLong), "the next warning counts what it left out")
    assert(log.throttled(shard, t0 + 60001).isEmpty)
  }

  test("each shard is warned of on its own") {
    val log = new ThrottleLog(quietMs = 60000)
    assert(log.throttled(ShardKey("s", "shardId-000000000000"), 0L).contains(0L))
    assert(log.throttled(ShardKey("s", "shardId-000000000001"), 1L).contains(0L))
    assert(log.throttled(ShardKey("t", "shardId-000000000000"), 2L).contains(0L))
    assert(log.throttled(ShardKey("s", "shardId-000000000000"), 3L).isEmpty)
  }
}
