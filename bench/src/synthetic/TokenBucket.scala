// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

/**
 * A token bucket over real time: it holds at most `capacity` tokens and fills at `perSecond`; a take may
 * leave it below zero (an answer larger than what is left), and it fills up from there. Not thread-safe: its
 * owner ([[ShardLimits]], [[CallRate]]) reads and takes under its own lock.
 */
private[synthetic] final class TokenBucket(capacity: Double, perSecond: Double, startNanos: Long) {
  private var tokens = capacity
  private var at = startNanos

  /** The tokens held at `now` (nanoseconds, the clock `startNanos` is of). */
  def level(now: Long): Double = {
    tokens = math.min(capacity, tokens + (now - at) / 1e9 * perSecond)
    at = now
    tokens
  }

  def take(amount: Double, now: Long): Unit = {
    level(now)
    tokens -= amount
  }
}
