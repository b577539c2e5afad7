// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import java.util.concurrent.atomic.{AtomicIntegerArray, AtomicLongArray}

import io.github.sparkkinesis.client.{KinesisApi, KinesisApiException, KinesisRecord}
import io.github.sparkkinesis.config.PrefetchConfig
import io.github.sparkkinesis.fetch.Backoff
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.prefetch.{FetchCursor, FetchFailure, ShardFetchSpec, ShardFetcher}
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Some shards of a real-time task, read by one thread: each call goes to the shard whose pacing lets it be
 * called first (a [[ShardFetcher]] each, as prefetch tasks read, with its de-aggregation of KPL records),
 * and what a call read is returned as [[RealTimeLane.Fetched]], for the task's reader to hand on. A failed
 * call is tried again with backoff, within the batch, unless trying again cannot help (the stream is gone,
 * access denied, records lost): then it is thrown, as the error a user sees. A shard whose enhanced fan-out
 * consumer is gone is polled for the rest of the batch; the driver registers the consumer again when it
 * plans the next one. Not thread-safe: one thread drives it.
 *
 * @param shards the lane's shards, by their index among the task's
 * @param seen   what the task's lanes saw of each of its shards, for its reader
 */
private[realtime] final class RealTimeLane(
    shards: IndexedSeq[(Int, RealTimeShard)],
    api: KinesisApi,
    reading: PrefetchConfig,
    seen: RealTimeLane.Seen,
    clock: Clock) {
  import RealTimeLane._

  private val fetchers = shards.map { case (_, shard) => fetcherOf(shard, shard.from, shard.consumerArn) }.toArray
  private val failures = Array.fill(shards.size)(0)
  private val retryAt = Array.fill(shards.size)(0L)
  private val ended = Array.fill(shards.size)(false)

  private def fetcherOf(shard: RealTimeShard, from: ShardPosition, consumerArn: Option[String]) =
    new ShardFetcher(
      api,
      ShardFetchSpec(shard.key, from, FetchCursor(None, 0, reading.maxRecordsPerFetch), consumerArn = consumerArn),
      reading,
      arrivedBefore = Long.MaxValue,
      clock)

  /** Every shard of the lane is closed and read to its end: nothing more will come. */
  def done: Boolean = ended.forall(identity)

  /**
   * Reads until a call brings records or a shard's end, `until` (epoch ms) passes, `stopped` says so, or
   * every shard has ended. Only shards `ready` for more (by their index in the task) are called.
   */
  def read(until: Long, ready: Int => Boolean, stopped: => Boolean): Option[Fetched] = {
    var fetched = Option.empty[Fetched]
    while (fetched.isEmpty && !done && !stopped && clock.nowMillis() < until) {
      val now = clock.nowMillis()
      val next = due(ready)
      val wait = if (next < 0) PollMs else callAt(next) - now
      if (wait > 0) clock.sleep(math.min(math.min(wait, PollMs), until - now))
      else fetched = fetch(next)
    }
    fetched
  }

  private def callAt(i: Int): Long = math.max(fetchers(i).nextCallAt, retryAt(i))

  /** The shard, ready and not ended, whose next call is due first; -1 if there is none. */
  private def due(ready: Int => Boolean): Int = {
    var first = -1
    var i = 0
    while (i < shards.size) {
      if (!ended(i) && ready(shards(i)._1) && (first < 0 || callAt(i) < callAt(first))) first = i
      i += 1
    }
    first
  }

  private def fetch(i: Int): Option[Fetched] = {
    val (index, shard) = shards(i)
    val fetcher = fetchers(i)
    try {
      fetcher.fetchOnce()
      failures(i) = 0
      fetcher.millisBehindLatest.foreach(seen.lags.set(index, _))
      val records = fetcher.take()
      ended(i) = fetcher.finished
      if (records.nonEmpty || ended(i)) Some(Fetched(index, records, ended(i))) else None
    } catch {
      case e: KinesisApiException =>
        val failure = FetchFailure.of(e, shard.key, fetcher.subscribes, api.target)
        failure.kind match {
          case FetchFailure.Fatal => throw failure.error
          case FetchFailure.ConsumerGone =>
            log.warn(
              s"The consumer reading ${shard.key} in real time is gone; polling it for the rest of the batch: $e")
            fetcher.close()
            fetchers(i) = fetcherOf(shard, fetcher.position, consumerArn = None)
            seen.consumersGone.set(index, 1)
          case _ =>
            failures(i) += 1
            val pause = Backoff.pauseAfter(failures(i), RetryPauseMs, MaxRetryPauseMs)
            log.warn(
              s"Reading ${shard.key} in real time failed (${failures(i)} in a row); trying again in $pause ms: $e")
            retryAt(i) = clock.nowMillis() + pause
        }
        None
    }
  }

  /** Releases what the shards' reads hold open; a subscription waits for the next batch's task here. */
  def close(): Unit = fetchers.foreach(_.close())
}

private[realtime] object RealTimeLane {
  private val log = LoggerFactory.getLogger(classOf[RealTimeLane])

  /**
   * What a task's lanes saw of each of its shards, written by the lanes, read by the task's reader from
   * any thread: the MillisBehindLatest of the last answer (-1: none yet), and whether its consumer is gone.
   */
  final class Seen(shards: Int) {
    val lags = new AtomicLongArray(Array.fill(shards)(-1L))
    val consumersGone = new AtomicIntegerArray(shards)
  }

  /** What one call read of the task's shard `index`: its records, and whether the shard ended with them. */
  final case class Fetched(index: Int, records: Seq[KinesisRecord], ended: Boolean)

  /** The longest a lane sleeps at once, so that it sees soon when the task is over. */
  val PollMs = 20L

  /** Pauses after failed calls, doubling from the first to the last. */
  private val RetryPauseMs = 500L
  private val MaxRetryPauseMs = 5000L
}
