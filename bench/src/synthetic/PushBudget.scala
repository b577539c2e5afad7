// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

/**
 * What SubscribeToShard may push to one consumer from one shard: 2 MB a second, as Kinesis' enhanced
 * fan-out gives each consumer per shard, kept as a token bucket over real time that one event may overdraw.
 * Thread-safe.
 */
private[synthetic] final class PushBudget(nowNanos: () => Long = () => System.nanoTime()) {
  private val perSecond = ShardLimits.ReadBytesPerSecond
  private var tokens = perSecond // guarded by this
  private var at = nowNanos()

  /** The bytes an event may carry now: none while the budget is overdrawn. */
  def available(): Long = synchronized {
    val now = nowNanos()
    tokens = math.min(perSecond, tokens + (now - at) / 1e9 * perSecond)
    at = now
    math.max(0L, tokens.toLong)
  }

  /** What an event carried. */
  def charge(bytes: Long): Unit = synchronized(tokens -= bytes)
}
