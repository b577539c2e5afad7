// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import java.util.concurrent.atomic.{AtomicIntegerArray, AtomicLongArray}

import io.github.sparkkinesis.client.{KinesisApi, KinesisRecord}
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.reading.{FailurePolicy, FetchLoop, ShardFetchSpec, ShardFetcher}
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Some shards of a real-time task, read by one thread with the reader every mode reads with ([[FetchLoop]]
 * over a [[ShardFetcher]] each: the same pacing, subscriptions and de-aggregation of KPL records as prefetch
 * tasks), and what a call read is returned as [[RealTimeLane.Fetched]], for the task's reader to hand on. A
 * failed call goes as `reading.FailurePolicy` says for every mode: tried again with backoff, within the
 * batch, until `outageTimeout` (then `KINESIS_UNAVAILABLE` for an outage), unless trying again cannot help
 * (the stream is gone, access denied, records lost), which fails the task at once with the error a user
 * sees; a shard whose enhanced fan-out consumer is gone is polled for the rest of the batch, and the driver
 * registers the consumer again when it plans the next one. Not thread-safe: one thread drives it.
 *
 * @param shards the lane's shards, by their index among the task's
 * @param seen   what the task's lanes saw of each of its shards, for its reader
 */
private[realtime] final class RealTimeLane(
    shards: IndexedSeq[(Int, RealTimeShard)],
    api: KinesisApi,
    reading: ReadConfig,
    seen: RealTimeLane.Seen,
    clock: Clock) {
  import RealTimeLane._

  private val loop =
    new FetchLoop(shards.map { case (_, shard) => fetcherOf(shard, shard.from, shard.consumerArn) }, clock, api.target)

  private def fetcherOf(shard: RealTimeShard, from: ShardPosition, consumerArn: Option[String]) =
    new ShardFetcher(
      api,
      ShardFetchSpec.fresh(shard.key, from, reading.maxRecordsPerFetch, consumerArn),
      reading,
      clock)

  /** Every shard of the lane is closed and read to its end: nothing more will come. */
  def done: Boolean = loop.done

  /**
   * Reads until a call brings records or a shard's end, `until` (epoch ms) passes, `stopped` says so, or
   * every shard has ended. Only shards `ready` for more (by their index in the task) are called.
   */
  def read(until: Long, ready: Int => Boolean, stopped: => Boolean): Option[Fetched] = {
    var fetched = Option.empty[Fetched]
    while (fetched.isEmpty && !done && !stopped && clock.nowMillis() < until) {
      loop.callNext(until, stopped, i => ready(shards(i)._1)).foreach {
        case FetchLoop.Called(i) =>
          val fetcher = loop.fetcher(i)
          fetcher.millisBehindLatest.foreach(seen.lags.set(shards(i)._1, _))
          val records = fetcher.take()
          if (records.nonEmpty || fetcher.finished) fetched = Some(Fetched(shards(i)._1, records, fetcher.finished))
        case FetchLoop.Failed(i, failure, cause, failingForMs) =>
          val (index, shard) = shards(i)
          val now = clock.nowMillis()
          FailurePolicy.decide(failure, shard.key, failingForMs, reading.outageTimeoutMs, api.target, now) match {
            case FailurePolicy.Fail(error) => throw error
            case FailurePolicy.Poll =>
              log.warn(
                s"The consumer reading ${shard.key} in real time is gone; polling it for the rest of the batch: $cause")
              loop.replace(i, fetcherOf(shard, loop.fetcher(i).position, consumerArn = None))
              seen.consumersGone.set(index, 1)
            case FailurePolicy.TryAgain =>
              val pause = loop.retryLater(i)
              log.warn(
                s"Reading ${shard.key} in real time has failed for $failingForMs ms; trying again in $pause ms: $cause")
          }
      }
    }
    fetched
  }

  /** Releases what the shards' reads hold open; a subscription waits for the next batch's task here. */
  def close(): Unit = loop.close()
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
}
