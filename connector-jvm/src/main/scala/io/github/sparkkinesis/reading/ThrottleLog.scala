// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import java.util.concurrent.ConcurrentHashMap

import io.github.sparkkinesis.offsets.ShardKey

/**
 * When a throttled shard is worth a warning: the first throttled call of a shard in this JVM, and after that
 * the first one once `quietMs` have passed since the last warning, which then says how many calls were
 * throttled in between. Every other throttled call is logged at DEBUG. One per JVM (an executor), shared by
 * all its readers: the queries that poll one stream share each shard's limits, so a throttled shard is one
 * thing to say, whichever of them met it. Thread-safe.
 */
private[reading] final class ThrottleLog(quietMs: Long) {
  import ThrottleLog._

  private val shards = new ConcurrentHashMap[ShardKey, State]()

  /**
   * A call to `shard` was throttled at `nowMs`: whether to warn, and if so how many throttled calls of the
   * shard went unwarned since the last warning (0 at the first).
   */
  def throttled(shard: ShardKey, nowMs: Long): Option[Long] = {
    val state = shards.computeIfAbsent(shard, _ => new State)
    state.synchronized {
      if (state.warnedAt.exists(nowMs - _ < quietMs)) {
        state.since += 1
        None
      } else {
        val unwarned = state.since
        state.warnedAt = Some(nowMs)
        state.since = 0
        Some(unwarned)
      }
    }
  }
}

private[reading] object ThrottleLog {

  /** How long after a warning about a throttled shard the next one waits. */
  val QuietMs = 60000L

  val shared = new ThrottleLog(QuietMs)

  private final class State {
    var warnedAt = Option.empty[Long]
    var since = 0L
  }
}
