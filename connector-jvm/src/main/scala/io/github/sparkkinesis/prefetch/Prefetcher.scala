// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.ApiFailures
import io.github.sparkkinesis.config.{ByteSizes, PrefetchConfig}
import io.github.sparkkinesis.consumers.StreamConsumers
import io.github.sparkkinesis.errors.{ErrorCondition, KinesisErrors, KinesisException}
import io.github.sparkkinesis.health.KinesisHealth
import io.github.sparkkinesis.reading.{ArrivalCutoff, FetchFailure, ShardFetchSpec}
import io.github.sparkkinesis.util.{Clock, DaemonThreads}
import io.github.sparkkinesis.util.Backoff
import org.slf4j.LoggerFactory

/**
 * The driver's background prefetch loop. While the query runs it starts one prefetch job after another,
 * each reading every shard the catalog wants read, in tasks as [[PrefetchPlan]] groups them, and hands each job's
 * blocks to the catalog. It pauses while the uncommitted prefetched data exceeds `fetchBufferSize`, and gives
 * each job only the room left below it, shared among its tasks ([[PrefetchTask.heldBytesPerTask]]).
 * Failures of Kinesis calls are retried with backoff: an outage (Kinesis cannot be reached, or fails
 * every call) until `health` says it has lasted the option outageTimeout, other failures of a shard until
 * [[Prefetcher.MaxConsecutiveFailures]] in a row; a stream that is gone, denied access, records lost, or
 * those limits reached stop the query through [[BlockCatalog.fail]], with the error as the user sees it.
 *
 * Under `consumerMode` efo, open shards are read through the query's consumers, which `consumers` keeps
 * registered; closed shards are always polled, as GetRecords is what tells for certain where a closed
 * shard ends.
 *
 * @param health    whether Kinesis answers the source's calls
 * @param cutoff    under Trigger.AvailableNow where the run's reads end, else None
 * @param consumers the query's enhanced fan-out consumers, under consumerMode efo
 */
private[sparkkinesis] final class Prefetcher(
    catalog: BlockCatalog,
    jobs: PrefetchJobs,
    store: BlockStore,
    config: PrefetchConfig,
    streamId: Int,
    cutoff: () => Option[ArrivalCutoff],
    description: String,
    clock: Clock,
    health: KinesisHealth,
    consumers: Option[StreamConsumers] = None) {
  import Prefetcher._

  private val log = LoggerFactory.getLogger(getClass)
  @volatile private var stopped = false
  @volatile private var inJob = false
  private var thread = Option.empty[Thread]
  private var failedJobs = 0
  private var lastSweepMs = clock.nowMillis()
  private var sweepFailed = false // the last look for stray blocks failed

  /** Starts the loop, once. Called by the query's thread, so the job properties it inherits are the query's. */
  def start(): Unit = synchronized {
    if (thread.isEmpty && !stopped) {
      thread = Some(DaemonThreads.start(s"kinesis-prefetcher $description") {
        try loop()
        catch {
          // Stopping interrupts the loop wherever it is: what it was doing no longer matters.
          case e: Throwable if stopped => log.debug(s"The prefetch loop of $description ended on stop: $e")
          // Whatever ends the loop ends the query at its next batch, with the cause: a class that fails to
          // link (a LinkageError, which NonFatal lets through) must not leave a query waiting for data.
          case e: Throwable if !stopped => catalog.fail(KinesisErrors.prefetchBroken(description, e))
        }
      })
    }
  }

  /** Runs jobs until the query stops, or fails (a failure stops it at its next batch), or Spark shuts down. */
  private def loop(): Unit =
    while (!stopped && catalog.failure.isEmpty && !jobs.shutDown) {
      if (clock.nowMillis() - lastSweepMs >= SweepIntervalMs) removeStray()
      val mark = catalog.mark
      val buffered = catalog.bufferedBytes
      val shards = catalog.toFetch
      if (buffered >= config.fetchBufferBytes) {
        log.debug(s"$description: ${ByteSizes.format(buffered)} prefetched and uncommitted; waiting for commits")
        catalog.awaitChange(mark, IdleWaitMs)
      } else if (shards.isEmpty) catalog.awaitChange(mark, IdleWaitMs)
      else runJob(shards, buffered)
    }

  /** Runs one job over `shards`, its tasks sharing the room `buffered` bytes leave in `fetchBufferSize`. */
  private def runJob(shards: Seq[ShardFetchSpec], buffered: Long): Unit = {
    val end = cutoff()
    try {
      val groups = PrefetchPlan.tasks(routed(shards), config.shardsPerTask, jobs.slots, config.maxPartitions)
      val held = PrefetchTask.heldBytesPerTask(config.fetchBufferBytes - buffered, groups.size)
      val tasks = groups.map(PrefetchTaskSpec(_, streamId, end, held))
      val outcomes =
        try {
          inJob = true
          jobs.run(tasks).map(pauseAfterFailure)
        } finally inJob = false
      failedJobs = 0
      remove(catalog.accept(outcomes))
      outcomes.foreach(checkFailure)
      health.check()
    } catch {
      case e @ ErrorCondition(condition) if !stopped && needsFix(condition) => catalog.fail(e)
      // The connector's classes clash (two class loaders, a wrong jar): trying again cannot help.
      case e: ClassCastException if !stopped => catalog.fail(KinesisErrors.prefetchBroken(description, e))
      // A driver call of the job (the consumers', under efo) found Kinesis unreachable.
      case e: KinesisException if !stopped && ApiFailures.transient(e) =>
        health.failedAll(e)
        try health.check()
        catch { case unavailable: KinesisException => catalog.fail(unavailable) }
        clock.sleep(RetryPauseMs)
      // The driver is exiting: the query ends with it, and so does the loop, without a word above INFO.
      case NonFatal(e) if jobs.shutDown => log.info(s"Spark is shutting down: prefetching for $description ends ($e)")
      // The job's tasks could not be sent: the role's session, which they carry, could not be had for now.
      case NonFatal(e) if !stopped && connectorError(e).exists(ApiFailures.transient) =>
        removeStray()
        health.failedAll(connectorError(e).get)
        try health.check()
        catch { case unavailable: KinesisException => catalog.fail(unavailable) }
        clock.sleep(RetryPauseMs)
      // ... or not at all (STS refused the role, say).
      case NonFatal(e) if !stopped && connectorError(e).flatMap(ErrorCondition.unapply).exists(needsFix) =>
        removeStray()
        catalog.fail(connectorError(e).get)
      case NonFatal(e) if !stopped =>
        // Tasks of a failed job that did finish have stored blocks the catalog never heard of.
        removeStray()
        if (jobs.wasCancelled(e)) log.info(s"A prefetch job of $description was cancelled")
        else {
          failedJobs += 1
          if (failedJobs >= MaxConsecutiveFailures)
            catalog.fail(KinesisErrors.prefetchFailed(description, failedJobs, e))
          else {
            val pause = Backoff.pauseAfter(failedJobs, RetryPauseMs, MaxRetryPauseMs)
            log.warn(s"A prefetch job of $description failed ($failedJobs in a row); trying again in $pause ms", e)
            clock.sleep(pause)
          }
        }
    }
  }

  /** The shards, open ones to be read through the stream's consumer under consumerMode efo. */
  private def routed(shards: Seq[ShardFetchSpec]): Seq[ShardFetchSpec] = consumers match {
    case None => shards
    case Some(registered) =>
      val arns = registered.arns()
      shards.map(s => if (s.closed) s else s.copy(consumerArn = arns.get(s.shard.stream)))
  }

  /**
   * Failures that retrying does not cure: of registering consumers, a consumer registered beforehand that
   * cannot be read through, credentials refused or not found, or an outage that lasted too long.
   */
  private def needsFix(condition: ErrorCondition): Boolean =
    Set(
      ErrorCondition.AccessDenied,
      ErrorCondition.StreamNotFound,
      ErrorCondition.ConsumerNotActive,
      ErrorCondition.RegisteredConsumerUnusable,
      ErrorCondition.CredentialsUnavailable,
      ErrorCondition.Unavailable
    ).contains(condition)

  /** The connector's error inside a failed job (Spark wraps what sending its tasks threw), if there is one. */
  private def connectorError(e: Throwable): Option[KinesisException] =
    Iterator.iterate(e.getCause)(_.getCause).takeWhile(_ != null).take(20).collectFirst { case k: KinesisException =>
      k
    }

  /** A shard whose prefetch failed waits before its next call, longer with each failure in a row. */
  private def pauseAfterFailure(o: ShardFetchOutcome): ShardFetchOutcome =
    if (o.failure.isEmpty) o
    else {
      val failures = catalog.failures(o.shard) + 1
      val pause = Backoff.pauseAfter(failures, RetryPauseMs, MaxRetryPauseMs)
      o.copy(cursor = o.cursor.copy(notBeforeMs = clock.nowMillis() + pause))
    }

  /**
   * What a shard's outcome says: a call that succeeded, part of an outage (which `health` bounds), a lost
   * consumer to register again, or a failure that stops the query at once or once it persists.
   */
  private def checkFailure(o: ShardFetchOutcome): Unit = o.failure match {
    case None => o.answeredAt.foreach(health.succeeded(o.shard.stream, _))
    case Some(f) =>
      f.kind match {
        case FetchFailure.Fatal => catalog.fail(f.error)
        case FetchFailure.ConsumerGone => consumers.foreach(_.lost(o.shard.stream))
        case FetchFailure.Transient => health.failed(o.shard.stream, f.error)
        case FetchFailure.Other =>
          val failures = catalog.failures(o.shard)
          if (failures >= MaxConsecutiveFailures) catalog.fail(f.error)
          else log.warn(s"Prefetching ${o.shard} failed ($failures in a row); trying again: ${f.error.getMessage}")
      }
  }

  private def remove(blocks: Seq[BlockRef]): Unit =
    if (blocks.nonEmpty) {
      try store.remove(blocks)
      catch { case NonFatal(e) => log.warn(s"Could not remove ${blocks.size} prefetched blocks", e) }
    }

  /**
   * Removes the source's blocks that the catalog does not hold: those of tasks whose results never arrived
   * (a failed or cancelled job, a speculative attempt that lost). Runs between jobs, and every
   * [[Prefetcher.SweepIntervalMs]] for attempts that store a block after their job ended. A look that fails
   * is tried again at the next sweep, and warned of only if that fails too: Spark's block manager may throw
   * while it lists blocks that other tasks store at the same moment.
   */
  private def removeStray(): Unit = {
    lastSweepMs = clock.nowMillis()
    try {
      store.removeAllBut(streamId, catalog.blocks)
      sweepFailed = false
    } catch {
      case NonFatal(e) if sweepFailed => log.warn(s"Could not look for stray prefetched blocks of $description", e)
      case NonFatal(e) =>
        sweepFailed = true
        log.info(s"Could not look for stray prefetched blocks of $description (will try again): $e")
    }
  }

  /**
   * Stops the loop and any running job, then removes every block of the source. Idempotent. A running job
   * has [[StopGraceMs]] to end by itself (a task ends within a second once its shards are caught up), so
   * that a graceful stop kills no task: Spark logs each killed task as a warning. One still running then
   * is cancelled.
   */
  def stop(): Unit = {
    stopped = true
    val running = synchronized(thread)
    running.foreach { t =>
      if (inJob) t.join(StopGraceMs)
      if (t.isAlive) {
        if (inJob) log.info(s"The prefetch job of $description did not end within $StopGraceMs ms; cancelling it")
        jobs.cancel()
        t.interrupt()
        t.join(StopWaitMs)
      }
    }
    catalog.clear()
    if (!jobs.shutDown) removeStray()
  }
}

private[sparkkinesis] object Prefetcher {
  val MaxConsecutiveFailures = 10
  val RetryPauseMs = 1000L
  val MaxRetryPauseMs = 30000L
  val SweepIntervalMs = 60000L
  private val IdleWaitMs = 100L
  private val StopWaitMs = 10000L
  private val StopGraceMs = 2000L
}
