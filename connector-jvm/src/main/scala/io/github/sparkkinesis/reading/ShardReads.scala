// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.IteratorStart

/**
 * How a shard's records come, in every mode: by polling with GetRecords ([[PolledReads]]) or from an
 * enhanced fan-out subscription ([[SubscribedReads]]). Each keeps its own pacing and open position; what
 * was read, where reading stands and when to stop are [[ShardFetcher]]'s, the same for both. Not
 * thread-safe: one thread drives it.
 */
private[reading] trait ShardReads extends AutoCloseable {

  /** The earliest instant of the next [[step]]. */
  def nextStepAt: Long

  /**
   * One step: one GetRecords call, or waiting briefly for one pushed event. `resumeAt` is where to open the
   * shard when nothing is open: after the last record read, or where the task started.
   */
  def step(resumeAt: => IteratorStart): ReadStep

  /** Forgets the open position; the next step opens the shard again at `resumeAt`. */
  def reset(): Unit

  /** Kinesis calls made. */
  def calls: Int

  /** When the last call Kinesis answered was made (epoch ms), if one was: throttled answers count. */
  def lastAnsweredAt: Option[Long]

  /** What the next task needs to go on reading as this one did. */
  def cursor: FetchCursor

  /** Releases what is open (a subscription); the shard's position is the fetcher's. */
  override def close(): Unit
}
