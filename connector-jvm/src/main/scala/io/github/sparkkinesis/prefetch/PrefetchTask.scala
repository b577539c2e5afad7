// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.util.concurrent.{Callable, ExecutionException, Future}
import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.config.{PrefetchConfig, ReadConfig}
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.reading.{FetchFailure, FetchLoop, ReadEnd, ShardFetchSpec, ShardFetcher, SubscriptionPool}
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
 *  - the task has held records for [[PrefetchTask.HandOverMs]], and every shard it holds records of is
 *    caught up: among thousands of quiet shards a record does not wait until each of them has been called
 *    once (a task reading a backlog, whose shards are behind, reads on);
 *  - every shard has been caught up, with nothing new, for [[PrefetchTask.IdleEndMs]]: an idle task gives
 *    its core back to the query's own tasks, and the next prefetch job polls on where it left off;
 *  - every shard is finished (closed and read, or past the AvailableNow cut-off);
 *  - it holds its share of the room left in `fetchBufferSize` when its job started, and at most
 *    [[PrefetchTask.MaxHeldBytes]] of records, so that a task reading many shards at their full rate, or a
 *    backlog at memory speed, holds a bounded share of the executor's heap and the buffer is not overrun
 *    by a job.
 * Then each shard's records are stored as one block, serialized, in memory and on disk. A Kinesis failure
 * ends that shard's reading and is reported with the shard's outcome; the driver decides what follows. A
 * task Spark cancels stops within [[FetchLoop.PollMs]] and stores nothing.
 */
private[sparkkinesis] object PrefetchTask {
  private val log = LoggerFactory.getLogger(getClass)

  /** How long a task whose shards are all at their tip, with nothing new, goes on polling. */
  val IdleEndMs = 1000L

  /** How long a task holds the records of caught-up shards while other shards wait for their call. */
  val HandOverMs = 500L

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

  /**
   * The longest a quiet polled shard waits between calls: a new record is seen within about that, on a
   * thread reading up to [[QuietCallsPerSecond]] times as many shards a second.
   */
  val MaxQuietPeriodMs = 2000L

  /**
   * The most calls a second a task's thread makes to its quiet shards (about a tenth of a core at the SDK's
   * cost per call): a thread with more than 1,000 quiet shards calls each less often than every
   * [[MaxQuietPeriodMs]], so that ten thousand shards on two cores leave the cores to the query.
   */
  val QuietCallsPerSecond = 500

  /**
   * A quiet shard alone on its thread is called every this many `minFetchPeriod`s (see [[quietPeriodMs]]):
   * two caught-up readers at the default pace then leave half a shard's calls to a third.
   */
  val QuietPeriodsAlone = 2

  /** About what a record costs on the heap besides its data: the record, its key and sequence number. */
  private val RecordHeapBytes = 200L

  private lazy val threads = DaemonThreads.cachedPool("kinesis-prefetch")

  /**
   * The task's threads: `shardsPerTask`; with `maxPartitions`, where a task's subscribed shards are not
   * bounded by `shardsPerTask`, also a thread for each subscribed shard, which waits on pushed events, and
   * one left for the polled shards.
   */
  def threadsFor(shards: Seq[ShardFetchSpec], config: PrefetchConfig): Int =
    if (config.maxPartitions.isEmpty) config.shardsPerTask
    else {
      val (subscribed, polled) = shards.partition(_.consumerArn.isDefined)
      math.max(config.shardsPerTask, subscribed.size + (if (polled.isEmpty) 0 else 1))
    }

  /**
   * Block ids: the task attempt's id times this, plus the shard's place in the task; above Kinesis' shard
   * quotas (tens of thousands a stream), so that a job is never run in rounds for its shard count.
   */
  val MaxShardsPerTask = 100000

  def run(
      spec: PrefetchTaskSpec,
      config: PrefetchConfig,
      reading: ReadConfig,
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
    val shards = spec.shards.toIndexedSeq // looked up by index, thousands of times in a task of thousands
    val lanes = lanesOf(shards.indices, shards, threadsFor(shards, config))
    val quiet = quietPeriodMs(lanes, shards, reading.minFetchPeriodMs)
    val fetchers = shards.map { s =>
      val end = spec.cutoff.fold[ReadEnd](ReadEnd.Open)(_.endOf(s.shard.stream))
      new ShardFetcher(api, s.copy(end = end), reading, clock, subscriptions, quiet)
    }
    val futures = lanes.map { lane =>
      threads.submit(new Callable[Seq[(Int, Option[FetchFailure])]] {
        override def call(): Seq[(Int, Option[FetchFailure])] =
          lane.zip(readUntilDone(new FetchLoop(lane.map(fetchers), clock, api.target), progress, clock))
      })
    }
    val failures =
      try {
        val byShard = futures.flatMap(f => resultOf(f)).toMap
        fetchers.indices.map(byShard)
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
          else Some(store.put(spec.streamId, taskAttemptId * MaxShardsPerTask + i, fetcher.shard, fetcher.records))
        block.foreach(stored += _)
        outcomeOf(fetcher, block, failure)
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

  /** What the task did with a shard; `block` holds the records, if there were any. */
  private def outcomeOf(fetcher: ShardFetcher, block: Option[BlockRef], failure: Option[FetchFailure]) = {
    val data = fetcher.lastSequenceNumber.filter(_ => fetcher.recordCount > 0).map { last =>
      // Up to the last Kinesis record whole, all its user records included.
      Segment(fetcher.shard, fetcher.from, ShardPosition.After(last), fetcher.recordCount.toLong, fetcher.bytes, block)
    }
    ShardFetchOutcome(
      shard = fetcher.shard,
      from = fetcher.from,
      data = data,
      reachedEnd = fetcher.shardEnded,
      cutoffReached = fetcher.readEndReached,
      cursor = fetcher.cursor,
      millisBehindLatest = fetcher.millisBehindLatest,
      answeredAt = fetcher.lastAnsweredAt,
      calls = fetcher.calls,
      throttledCalls = fetcher.throttled,
      corruptAggregates = fetcher.corruptAggregates,
      failure = failure
    )
  }

  private def resultOf[T](f: Future[T]): T =
    try f.get()
    catch { case e: ExecutionException => throw e.getCause }

  /** The task's threads, and the shards (by index) each reads: see [[FetchLoop.lanes]]. */
  private[prefetch] def lanesOf(
      indices: Seq[Int],
      shards: IndexedSeq[ShardFetchSpec],
      threads: Int): IndexedSeq[IndexedSeq[Int]] =
    FetchLoop.lanes(indices.toIndexedSeq, threads)(i => shards(i).consumerArn.isDefined)

  /**
   * How long a quiet polled shard may wait between calls ([[PolledReads]]): `minFetchPeriod` times the
   * shards its thread reads, and at least twice `minFetchPeriod`, at most [[MaxQuietPeriodMs]], unless the
   * thread's quiet calls would then be more than [[QuietCallsPerSecond]]. A thread reading many calls its
   * quiet shards less often, so that at a thousand shards on a few cores it does not spend its calls (and
   * the cores) on shards with nothing new. A shard with a thread of its own, once quiet, is called every
   * other `minFetchPeriod`: the shard's 5 calls a second are shared by all its readers, and readers that
   * have read all there is would otherwise, at the default pace, take every call Kinesis serves from one
   * that is behind, whose rare calls after a throttled rest then find none left.
   */
  private[prefetch] def quietPeriodMs(
      lanes: Seq[Seq[Int]],
      shards: IndexedSeq[ShardFetchSpec],
      minFetchPeriodMs: Long): Long = {
    val perThread = lanes.map(_.count(i => shards(i).consumerArn.isEmpty)).foldLeft(0)(math.max)
    math.max(
      math.min(MaxQuietPeriodMs, minFetchPeriodMs * math.max(QuietPeriodsAlone, perThread)),
      perThread * 1000L / QuietCallsPerSecond)
  }

  /**
   * One thread: calls each of its shards as their pacing allows, the one due first first ([[FetchLoop]]),
   * until the task is over or every shard is done; returns each shard's failure, if any. A failed call ends
   * its shard's reading in this task, not the others', and the driver decides what follows. An outage is
   * logged on the driver (see `health.KinesisHealth`), not by every task.
   */
  private def readUntilDone(loop: FetchLoop, progress: Progress, clock: Clock): IndexedSeq[Option[FetchFailure]] = {
    val failures = Array.fill[Option[FetchFailure]](loop.size)(None)
    val counted = Array.fill(loop.size)(false)
    val seen = Array.fill(loop.size)((0, 0L))
    def count(i: Int): Unit = if (!counted(i)) {
      counted(i) = true
      progress.shardCaughtUp(holdsRecords = seen(i)._1 > 0)
    }
    (0 until loop.size).foreach(i => if (!loop.reading(i)) count(i))
    try {
      var going = true
      while (going) {
        loop.callNext(progress.deadline, progress.over(clock.nowMillis())) match {
          case Some(FetchLoop.Called(i)) =>
            val fetcher = loop.fetcher(i)
            val (records, bytes) = seen(i)
            if (records == 0 && fetcher.recordCount > 0) progress.shardHoldsRecords(counted(i), clock.nowMillis())
            progress.addRecords(fetcher.recordCount - records, fetcher.bytes - bytes)
            seen(i) = (fetcher.recordCount, fetcher.bytes)
            if (fetcher.caughtUp) count(i)
          case Some(FetchLoop.Failed(i, failure, cause, _)) =>
            val shard = loop.fetcher(i).shard
            if (failure.kind == FetchFailure.Transient) log.debug(s"Prefetching $shard failed: $cause")
            else log.warn(s"Prefetching $shard stopped for this task on a failed call: $cause")
            failures(i) = Some(failure)
            loop.stop(i)
            count(i)
          case None => going = false
        }
      }
      failures.toIndexedSeq
    } finally {
      try loop.close()
      finally (0 until loop.size).foreach(count)
    }
  }

  /**
   * What the shard threads of one task share: the deadline, who is caught up, how much is held, and since
   * when, and how many shards hold records and are not caught up yet.
   */
  private final class Progress(
      startedAt: Long,
      val deadline: Long,
      shards: Int,
      maxHeldBytes: Long,
      cancelled: () => Boolean) {
    private val behind = new AtomicInteger(shards)
    private val behindHolding = new AtomicInteger() // shards with records that are not caught up
    private val records = new AtomicLong()
    private val held = new AtomicLong()
    @volatile private var holdingSince = Long.MaxValue
    @volatile private var stopped = false

    def shardCaughtUp(holdsRecords: Boolean): Unit = {
      if (holdsRecords) behindHolding.decrementAndGet()
      behind.decrementAndGet()
    }

    /** A shard has its first records now; `caughtUp` if it had been counted as caught up before. */
    def shardHoldsRecords(caughtUp: Boolean, now: Long): Unit = synchronized {
      if (!caughtUp) behindHolding.incrementAndGet()
      if (holdingSince == Long.MaxValue) holdingSince = now
    }
    def addRecords(n: Int, bytes: Long): Unit = {
      records.addAndGet(n.toLong)
      held.addAndGet(bytes + n * RecordHeapBytes)
    }
    def stop(): Unit = stopped = true

    def over(now: Long): Boolean =
      stopped || cancelled() || now >= deadline || held.get() >= maxHeldBytes ||
        (behind.get() <= 0 && (records.get() > 0 || now >= startedAt + IdleEndMs)) ||
        (behindHolding.get() <= 0 && now - holdingSince >= HandOverMs) // never while nothing is held
  }
}
