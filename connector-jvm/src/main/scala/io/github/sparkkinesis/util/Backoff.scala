// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.util

/**
 * Exponential backoff with jitter between `minMs` and `maxMs`; `reset` after a success. Not thread-safe:
 * one per user (a shard being read, a listing tried again, a sink task).
 */
private[sparkkinesis] final class Backoff(minMs: Long, maxMs: Long, clock: Clock) {
  private var failures = 0
  private var failingSince = Option.empty[Long]

  /** Sleeps before the next attempt; returns how long the failures have lasted so far. */
  def sleep(): Long = {
    val started = failingSince.getOrElse { val now = clock.nowMillis(); failingSince = Some(now); now }
    failures += 1
    val pause = Backoff.pauseAfter(failures, minMs, maxMs)
    clock.sleep(Backoff.jittered(pause))
    clock.nowMillis() - started
  }

  def reset(): Unit = {
    failures = 0
    failingSince = None
  }
}

private[sparkkinesis] object Backoff {

  /**
   * The pause after `failures` failures in a row (1 or more): `minMs`, doubled with each further failure,
   * at most `maxMs`. The one rule of the connector's exponential backoffs, kept by [[Backoff]] and by the
   * loops that count their failures themselves.
   */
  def pauseAfter(failures: Int, minMs: Long, maxMs: Long): Long =
    math.min(maxMs, minMs << math.min(20, math.max(0, failures - 1)))

  /**
   * A pause of `pauseMs` made uneven: its half, plus a part of the other half drawn at random (`random`, in
   * [0, 1)). Callers that were turned down together, the readers of one shard throttled in the same second,
   * so come back at different instants.
   */
  def jittered(pauseMs: Long, random: Double = math.random()): Long =
    pauseMs / 2 + math.min(pauseMs - pauseMs / 2, (random * (pauseMs - pauseMs / 2 + 1)).toLong)
}
