// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.util.concurrent.{Callable, ExecutionException, Future}
import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{KinesisApi, KinesisApiException}
import io.github.sparkkinesis.config.PrefetchConfig
import io.github.sparkkinesis.util.{Clock, DaemonThreads}
import org.slf4j.LoggerFactory

/**
 * Runs a prefetch task on an executor. The task reads until one of these, whichever comes first:
 *  - `maxFetchDuration` has passed since it started;
 *  - every shard is caught up with its newest record and the task holds at least one record, so new data
 *    is handed over as soon as it is there instead of waiting out `maxFetchDuration`;
 *  - every shard has been caught up, with nothing new, for [[PrefetchTask.IdleEndMs]]: an idle task gives
 *    its core back to the query's own tasks, and the next prefetch job polls on where it left off;
 *  - every shard is finished (closed and read, or past the AvailableNow cut-off).
 * Then each shard's records are stored as one block, serialized, in memory and on disk. A Kinesis failure
 * ends that shard's reading and is reported with the shard's outcome; the driver decides what follows. A
 * task Spark cancels stops within [[PrefetchTask.PollMs]] and stores nothing.
 */
private[sparkkinesis] object PrefetchTask {
  private val log = LoggerFactory.getLogger(getClass)

  /** How often a waiting shard thread looks whether the task is over. */
  val PollMs = 20L

  /** How long a task whose shards are all at their tip, with nothing new, goes on polling. */
  val IdleEndMs = 1000L

  private lazy val threads = DaemonThreads.cachedPool("kinesis-prefetch")

  /** Block ids: the task attempt's id times this, plus the shard's place in the task. */
  val MaxShardsPerTask = 1000

  def run(
      spec: PrefetchTaskSpec,
      config: PrefetchConfig,
      api: KinesisApi,
      store: BlockStore,
      clock: Clock,
      taskAttemptId: Long,
      cancelled: () => Boolean = () => false,
      subscriptions: => SubscriptionPool = SubscriptionPool.shared
  ): Seq[ShardFetchOutcome] = {
    val startedAt = clock.nowMillis()
    val progress = new Progress(startedAt, startedAt + config.maxFetchDurationMs, spec.shards.size, cancelled)
    val fetchers = spec.shards.map(s => new ShardFetcher(api, s, config, spec.arrivedBefore, clock, subscriptions))
    val futures: Seq[Future[Option[FetchFailure]]] = fetchers.map { fetcher =>
      threads.submit(new Callable[Option[FetchFailure]] {
        override def call(): Option[FetchFailure] = readUntilDone(fetcher, progress, clock, api.target)
      })
    }
    val failures =
      try futures.map(f => resultOf(f))
      catch {
        case e: InterruptedException =>
          // The shard threads end after their call in flight: a call cut off mid-request is a reset
          // connection, which helps nobody and crashes some Kinesis emulators.
          progress.stop()
          throw e
      }
    // A cancelled task (the query stopped) stores nothing: Spark drops its result anyway.
    if (cancelled()) Seq.empty else storeBlocks(spec, fetchers, failures, store, taskAttemptId, startedAt, clock)
  }

  /** Stores each shard's records as a block; on failure, removes the blocks already stored. */
  private def storeBlocks(
      spec: PrefetchTaskSpec,
      fetchers: Seq[ShardFetcher],
      failures: Seq[Option[FetchFailure]],
      store: BlockStore,
      taskAttemptId: Long,
      startedAt: Long,
      clock: Clock): Seq[ShardFetchOutcome] = {
    val stored = scala.collection.mutable.ArrayBuffer.empty[BlockRef]
    try {
      val outcomes = fetchers.zip(failures).zipWithIndex.map { case ((fetcher, failure), i) =>
        val block =
          if (fetcher.records.isEmpty) None
          else Some(store.put(spec.streamId, taskAttemptId * MaxShardsPerTask + i, fetcher.records))
        block.foreach(stored += _)
        fetcher.outcome(block, failure)
      }
      val records = outcomes.flatMap(_.data).map(_.records).sum
      log.info(
        s"Prefetched ${spec.shards.size} shards in ${clock.nowMillis() - startedAt} ms: $records records, " +
          s"${outcomes.flatMap(_.data).map(_.bytes).sum} bytes, ${outcomes.map(_.calls).sum} calls"
      )
      outcomes
    } catch {
      case NonFatal(e) =>
        stored.foreach(b =>
          try store.removeLocal(b)
          catch { case NonFatal(_) => () })
        throw e
    }
  }

  private def resultOf(f: Future[Option[FetchFailure]]): Option[FetchFailure] =
    try f.get()
    catch { case e: ExecutionException => throw e.getCause }

  /**
   * One shard's thread: calls as the pacing allows until the task is over; returns a failure, if any. An
   * outage is logged on the driver (see `health.KinesisHealth`), not by every task.
   */
  private def readUntilDone(
      fetcher: ShardFetcher,
      progress: Progress,
      clock: Clock,
      target: String): Option[FetchFailure] = {
    var counted = false
    def update(): Unit = if (!counted && fetcher.caughtUp) {
      counted = true
      progress.shardCaughtUp()
    }
    try {
      while (!fetcher.finished && !progress.over(clock.nowMillis())) {
        val now = clock.nowMillis()
        val wait = math.min(fetcher.nextCallAt - now, progress.deadline - now)
        if (wait > 0) clock.sleep(math.min(wait, PollMs))
        else {
          val before = fetcher.records.size
          fetcher.fetchOnce()
          progress.addRecords(fetcher.records.size - before)
          update()
        }
      }
      None
    } catch {
      case e: KinesisApiException =>
        val failure = FetchFailure.of(e, fetcher.shard, fetcher.subscribes, target)
        if (failure.kind == FetchFailure.Transient) log.debug(s"Prefetching ${fetcher.shard} failed: $e")
        else log.warn(s"Prefetching ${fetcher.shard} stopped for this task on a failed call: $e")
        Some(failure)
    } finally {
      fetcher.close()
      if (!counted) progress.shardCaughtUp()
    }
  }

  /** What the shard threads of one task share: the deadline, who is caught up, and how much is held. */
  private final class Progress(startedAt: Long, val deadline: Long, shards: Int, cancelled: () => Boolean) {
    private val behind = new AtomicInteger(shards)
    private val records = new AtomicLong()
    @volatile private var stopped = false

    def shardCaughtUp(): Unit = behind.decrementAndGet()
    def addRecords(n: Int): Unit = records.addAndGet(n.toLong)
    def stop(): Unit = stopped = true

    def over(now: Long): Boolean =
      stopped || cancelled() || now >= deadline || (behind
        .get() <= 0 && (records.get() > 0 || now >= startedAt + IdleEndMs))
  }
}
