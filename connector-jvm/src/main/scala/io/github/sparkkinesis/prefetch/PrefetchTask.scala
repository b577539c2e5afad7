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
 * Runs a prefetch task on an executor. Its shards are read on `shardsPerTask` threads at most: a shard read
 * through a subscription has a thread of its own; polled shards are dealt to the threads in turn, and each
 * thread calls whichever of its shards is due first ([[PrefetchPlan]] decides how many shards a task has).
 * The task reads until one of these, whichever comes first:
 *  - `maxFetchDuration` has passed since it started;
 *  - every shard is caught up with its newest record and the task holds at least one record, so new data
 *    is handed over as soon as it is there instead of waiting out `maxFetchDuration`;
 *  - every shard has been caught up, with nothing new, for [[PrefetchTask.IdleEndMs]]: an idle task gives
 *    its core back to the query's own tasks, and the next prefetch job polls on where it left off;
 *  - every shard is finished (closed and read, or past the AvailableNow cut-off);
 *  - it holds its share of the room left in `fetchBufferSize` when its job started, and at most
 *    [[PrefetchTask.MaxHeldBytes]] of records, so that a task reading many shards at their full rate, or a
 *    backlog at memory speed, holds a bounded share of the executor's heap and the buffer is not overrun
 *    by a job.
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

  /**
   * The most records a task holds before it hands them over: their data, and [[RecordHeapBytes]] a record
   * for the objects around it. A task may go past it by the calls in flight when it is reached (at most 10
   * MiB a call), and storing the blocks takes as much again while it lasts.
   */
  val MaxHeldBytes: Long = 64L * 1024 * 1024

  /** The least a task may hold, however little room `fetchBufferSize` has left: a job always moves on. */
  val MinHeldBytes: Long = 1024L * 1024

  /**
   * What each of a job's `tasks` may hold: an even share of the room `fetchBufferSize` has left, between
   * [[MinHeldBytes]] and [[MaxHeldBytes]].
   */
  def heldBytesPerTask(room: Long, tasks: Int): Long =
    math.min(MaxHeldBytes, math.max(MinHeldBytes, room / math.max(1, tasks)))

  /** The longest a quiet polled shard waits between calls: a new record is seen within about that. */
  val MaxQuietPeriodMs = 2000L

  /** About what a record costs on the heap besides its data: the record, its key and sequence number. */
  private val RecordHeapBytes = 200L

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
    val progress =
      new Progress(startedAt, startedAt + config.maxFetchDurationMs, spec.shards.size, spec.maxHeldBytes, cancelled)
    val quiet = quietPeriodMs(spec.shards, config)
    val fetchers =
      spec.shards.map(s => new ShardFetcher(api, s, config, spec.arrivedBefore, clock, subscriptions, quiet))
    val futures = lanes(fetchers, config.shardsPerTask).map { lane =>
      threads.submit(new Callable[Seq[(ShardFetcher, Option[FetchFailure])]] {
        override def call(): Seq[(ShardFetcher, Option[FetchFailure])] =
          lane.zip(readUntilDone(lane, progress, clock, api.target))
      })
    }
    val failures =
      try {
        val byFetcher = futures.flatMap(f => resultOf(f)).toMap
        fetchers.map(byFetcher)
      } catch {
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
          if (fetcher.recordCount == 0) None
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

  private def resultOf[T](f: Future[T]): T =
    try f.get()
    catch { case e: ExecutionException => throw e.getCause }

  /**
   * The task's threads and the shards each reads: a subscribed shard alone, as it waits on pushed events;
   * polled shards dealt in turn to at most `threads` threads (less those of the subscribed shards).
   */
  private[prefetch] def lanes(fetchers: Seq[ShardFetcher], threads: Int): Seq[IndexedSeq[ShardFetcher]] = {
    val (subscribed, polled) = fetchers.toIndexedSeq.partition(_.subscribes)
    val threadsPolling = pollingThreads(polled.size, subscribed.size, threads)
    subscribed.map(IndexedSeq(_)) ++
      (0 until threadsPolling).map(t => (t until polled.size by threadsPolling).map(polled))
  }

  private def pollingThreads(polled: Int, subscribed: Int, threads: Int): Int =
    math.min(polled, math.max(1, threads - subscribed))

  /**
   * How long a quiet polled shard may wait between calls ([[PolledReads]]): `minFetchPeriod` times the
   * shards its thread reads, at most [[MaxQuietPeriodMs]]. A shard with a thread of its own is called
   * every `minFetchPeriod` as asked; a thread reading many calls its quiet shards less often, so that at a
   * thousand shards on a few cores it does not spend its calls (and the cores) on shards with nothing new.
   */
  private[prefetch] def quietPeriodMs(shards: Seq[ShardFetchSpec], config: PrefetchConfig): Long = {
    val polled = shards.count(_.consumerArn.isEmpty)
    val threads = pollingThreads(polled, shards.size - polled, config.shardsPerTask)
    val perThread = if (threads == 0) 0 else (polled + threads - 1) / threads
    math.min(MaxQuietPeriodMs, config.minFetchPeriodMs * math.max(1, perThread))
  }

  /**
   * One thread: calls each of its shards as their pacing allows, the one due first first, until the task is
   * over or every shard is done; returns each shard's failure, if any. A failed call ends its shard's reading
   * in this task, not the others'. An outage is logged on the driver (see `health.KinesisHealth`), not by
   * every task.
   */
  private def readUntilDone(
      lane: IndexedSeq[ShardFetcher],
      progress: Progress,
      clock: Clock,
      target: String): IndexedSeq[Option[FetchFailure]] = {
    val failures = Array.fill[Option[FetchFailure]](lane.size)(None)
    val counted = Array.fill(lane.size)(false)
    def count(i: Int): Unit = if (!counted(i)) {
      counted(i) = true
      progress.shardCaughtUp()
    }

    /** The shard still reading whose next step is due first, or -1 if none is. */
    def due: Int = {
      var first = -1
      var i = 0
      while (i < lane.size) {
        if (failures(i).isEmpty && !lane(i).finished && (first < 0 || lane(i).nextCallAt < lane(first).nextCallAt))
          first = i
        i += 1
      }
      first
    }
    lane.indices.foreach(i => if (lane(i).finished) count(i))
    try {
      var next = due
      while (next >= 0 && !progress.over(clock.nowMillis())) {
        val fetcher = lane(next)
        val now = clock.nowMillis()
        val wait = math.min(fetcher.nextCallAt - now, progress.deadline - now)
        if (wait > 0) clock.sleep(math.min(wait, PollMs))
        else {
          try {
            val (records, bytes) = (fetcher.recordCount, fetcher.bytes)
            fetcher.fetchOnce()
            progress.addRecords(fetcher.recordCount - records, fetcher.bytes - bytes)
            if (fetcher.caughtUp) count(next)
          } catch {
            case e: KinesisApiException =>
              val failure = FetchFailure.of(e, fetcher.shard, fetcher.subscribes, target)
              if (failure.kind == FetchFailure.Transient) log.debug(s"Prefetching ${fetcher.shard} failed: $e")
              else log.warn(s"Prefetching ${fetcher.shard} stopped for this task on a failed call: $e")
              failures(next) = Some(failure)
              count(next)
          }
        }
        next = due
      }
      failures.toIndexedSeq
    } finally {
      lane.indices.foreach { i =>
        try lane(i).close()
        finally count(i)
      }
    }
  }

  /** What the shard threads of one task share: the deadline, who is caught up, and how much is held. */
  private final class Progress(
      startedAt: Long,
      val deadline: Long,
      shards: Int,
      maxHeldBytes: Long,
      cancelled: () => Boolean) {
    private val behind = new AtomicInteger(shards)
    private val records = new AtomicLong()
    private val held = new AtomicLong()
    @volatile private var stopped = false

    def shardCaughtUp(): Unit = behind.decrementAndGet()
    def addRecords(n: Int, bytes: Long): Unit = {
      records.addAndGet(n.toLong)
      held.addAndGet(bytes + n * RecordHeapBytes)
    }
    def stop(): Unit = stopped = true

    def over(now: Long): Boolean =
      stopped || cancelled() || now >= deadline || held.get() >= maxHeldBytes ||
        (behind.get() <= 0 && (records.get() > 0 || now >= startedAt + IdleEndMs))
  }
}
