// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

/**
 * A limit of calls a second, as Kinesis keeps its control plane's: a token bucket over real time that holds a
 * second's calls. With a stream's `limits`, the synthetic Kinesis keeps ListShards to
 * [[CallRate.ListShardsPerStream]] a stream and DescribeStreamSummary to [[CallRate.DescribeSummaryPerAccount]],
 * and answers a call over the limit as Kinesis does, with LimitExceededException. Thread-safe.
 */
private[bench] final class CallRate(perSecond: Int, nowNanos: () => Long = () => System.nanoTime()) {
  private val calls = new TokenBucket(capacity = perSecond, perSecond = perSecond, nowNanos())

  /** Whether a call may be served now; if so, it counts. */
  def admit(): Boolean = synchronized {
    val now = nowNanos()
    if (calls.level(now) < 1) false else { calls.take(1, now); true }
  }
}

private[bench] object CallRate {

  /**
   * ListShards calls a second a stream is allowed: 100, as Kinesis' API reference said for years (1,000 in
   * today's); the stricter one, as a reader that keeps to it keeps to both.
   */
  val ListShardsPerStream = 100

  /** DescribeStreamSummary calls a second an account is allowed. */
  val DescribeSummaryPerAccount = 20

  /** Kinesis' answer to a control-plane call over its limit. */
  val LimitExceeded = "LimitExceededException"
}
