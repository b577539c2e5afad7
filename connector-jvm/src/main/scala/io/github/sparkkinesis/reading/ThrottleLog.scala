// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import java.util.concurrent.ConcurrentHashMap

import io.github.sparkkinesis.offsets.ShardKey

/**
 * How loud a shard's throttled call is in the log: a WARN when the shard's throttling starts (its first
 * throttled call in this JVM, or the first after `quietMs` without one), then, while it goes on, an INFO
 * summary at most once every `quietMs` with the throttled calls since the last line, and DEBUG for every
 * other. One per JVM (an executor), shared by all its readers: the queries that poll one stream share each
 * shard's limits, so a throttled shard is one thing to say, whichever of them met it. Thread-safe.
 */
private[reading] final class ThrottleLog(quietMs: Long) {
  import ThrottleLog._

  private val shards = new ConcurrentHashMap[ShardKey, State]()

  /** A call to `shard` was throttled at `nowMs`: how to log it. */
  def throttled(shard: ShardKey, nowMs: Long): Line = {
    val state = shards.computeIfAbsent(shard, _ => new State)
    state.synchronized {
      val line =
        if (state.lastThrottledAt.forall(nowMs - _ >= quietMs)) {
          state.loggedAt = nowMs
          state.unlogged = 0
          Starts
        } else if (nowMs - state.loggedAt >= quietMs) {
          val summary = GoesOn(state.unlogged + 1, nowMs - state.loggedAt)
          state.loggedAt = nowMs
          state.unlogged = 0
          summary
        } else {
          state.unlogged += 1
          Quiet
        }
      state.lastThrottledAt = Some(nowMs)
      line
    }
  }
}

private[reading] object ThrottleLog {

  /** How long a shard goes without throttling before it starts anew, and between two summaries. */
  val QuietMs = 60000L

  val shared = new ThrottleLog(QuietMs)

  /** How to log a throttled call. */
  sealed trait Line

  /** The shard's throttling starts: WARN. */
  case object Starts extends Line

  /** It goes on: INFO, `calls` throttled calls (this one included) in the last `overMs`. */
  final case class GoesOn(calls: Long, overMs: Long) extends Line

  /** DEBUG. */
  case object Quiet extends Line

  private final class State {
    var lastThrottledAt = Option.empty[Long]
    var loggedAt = 0L
    var unlogged = 0L
  }
}
