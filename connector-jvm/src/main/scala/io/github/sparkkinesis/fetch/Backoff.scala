package io.github.sparkkinesis.fetch

import io.github.sparkkinesis.util.Clock

/**
 * Exponential backoff with jitter between `minMs` and `maxMs`; `reset` after a success. Not thread-safe:
 * one per shard reader.
 */
final class Backoff(minMs: Long, maxMs: Long, clock: Clock) {
  private var next = minMs
  private var failingSince = Option.empty[Long]

  /** Sleeps before the next attempt; returns how long the failures have lasted so far. */
  def sleep(): Long = {
    val started = failingSince.getOrElse { val now = clock.nowMillis(); failingSince = Some(now); now }
    val jittered = next / 2 + (math.random() * (next / 2 + 1)).toLong
    clock.sleep(jittered)
    next = math.min(maxMs, next * 2)
    clock.nowMillis() - started
  }

  def reset(): Unit = {
    next = minMs
    failingSince = None
  }
}
