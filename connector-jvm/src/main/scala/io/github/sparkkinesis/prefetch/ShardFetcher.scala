// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.client.{KinesisApi, KinesisRecord}
import io.github.sparkkinesis.config.PrefetchConfig
import io.github.sparkkinesis.kpl.Deaggregation
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.util.Clock

/**
 * Reads one shard for one prefetch task and holds what it read until the task stores it. How records come
 * is a strategy chosen by the driver per shard: GetRecords polling ([[PolledReads]]), or, for an open shard
 * under `consumerMode` efo, the query's enhanced fan-out subscription ([[SubscribedReads]]). Where reading
 * stands, what it read, the shard's end and Trigger.AvailableNow's cut-off are kept here, alike for both.
 *
 * Under Trigger.AvailableNow (`arrivedBefore` < Long.MaxValue) it keeps only records that arrived before
 * the run's start and stops once it has them all. Subscriptions open at the task's end are left in
 * `subscriptions` for the next task on this executor. Not thread-safe: one thread drives it.
 */
private[sparkkinesis] final class ShardFetcher(
    api: KinesisApi,
    spec: ShardFetchSpec,
    config: PrefetchConfig,
    arrivedBefore: Long,
    clock: Clock,
    subscriptions: => SubscriptionPool = SubscriptionPool.shared,
    quietPeriodMs: Long = 0L) {

  private val key = spec.shard
  private val reads: ShardReads = spec.consumerArn match {
    case Some(consumer) => new SubscribedReads(api, key, consumer, config, spec.cursor, subscriptions, clock)
    case None => new PolledReads(api, key, config, spec.cursor, clock, quietPeriodMs)
  }

  private val fetched = ArrayBuffer.empty[KinesisRecord]
  private var fetchedBytes = 0L

  private val progress = new ReadProgress(key, spec.from)
  private var millisBehind = Option.empty[Long]
  private var atTip = false
  private var ended = spec.from == ShardPosition.ShardEnd
  private var cutoffReached = false
  private var throttledCalls = 0
  private var corruptAggregates = 0

  /** What was read, in order (a copy: the task's loop counts with [[recordCount]]). */
  def records: Seq[KinesisRecord] = fetched.toVector

  /** How many user records were read. */
  def recordCount: Int = fetched.size

  def bytes: Long = fetchedBytes

  /** The records read since the last call, handed over and forgotten: real-time reads take them so. */
  def take(): Seq[KinesisRecord] = {
    val taken = fetched.toVector
    fetched.clear()
    fetchedBytes = 0
    taken
  }

  /**
   * After the last record read (all the user records of a KPL aggregate), or where reading started if
   * nothing was: where another reader goes on from.
   */
  def position: ShardPosition = progress.lastSequenceNumber.fold(spec.from)(ShardPosition.After(_))

  /** MillisBehindLatest of the last answer, if there was one. */
  def millisBehindLatest: Option[Long] = millisBehind

  /** Nothing more to read in this task: the shard is closed and read, or the cut-off is reached. */
  def finished: Boolean = ended || cutoffReached

  /**
   * Whether the last answer reached the shard's newest record, so the task has nothing to wait for here.
   */
  def caughtUp: Boolean = finished || atTip

  /** The earliest instant of the next step. */
  def nextCallAt: Long = reads.nextStepAt

  /** One step of reading: a GetRecords call, or waiting briefly for a pushed event. */
  def fetchOnce(): Unit =
    reads.step(progress.resumeAt) match {
      case ReadStep.Nothing => ()
      case ReadStep.Throttled(_) => throttledCalls += 1
      case read: ReadStep.Read =>
        millisBehind = Some(read.millisBehindLatest)
        atTip = read.atTip
        val kept = read.records.takeWhile(_.approximateArrivalMillis < arrivedBefore)
        val (users, corrupt) = Deaggregation.userRecords(key, kept, spec.from)
        corruptAggregates += corrupt
        users.foreach { r =>
          fetched += r
          fetchedBytes += r.data.length
        }
        progress.read(kept)
        if (kept.size < read.records.size) {
          cutoffReached = true
          reads.reset()
        } else {
          ended = read.shardEnded
          // Nothing at all after the last record, in an answer given after the cut-off: nothing older is left.
          if (read.records.isEmpty && read.millisBehindLatest == 0 && read.asOf >= arrivedBefore)
            cutoffReached = true
        }
    }

  /** Whether the shard is read through an enhanced fan-out subscription. */
  def subscribes: Boolean = spec.consumerArn.isDefined

  def shard: ShardKey = key

  /** Releases what the reads hold open; called by the task when it is over. */
  def close(): Unit = reads.close()

  /** What this task did with the shard; `block` holds the records, if there were any. */
  def outcome(block: Option[BlockRef], failure: Option[FetchFailure]): ShardFetchOutcome = {
    val data = progress.lastSequenceNumber.filter(_ => fetched.nonEmpty).map { last =>
      Segment(
        key,
        spec.from,
        ShardPosition.After(last), // the last Kinesis record whole, all its user records included
        fetched.size.toLong,
        fetchedBytes,
        block
      )
    }
    ShardFetchOutcome(
      shard = key,
      from = spec.from,
      data = data,
      reachedEnd = ended,
      cutoffReached = cutoffReached,
      cursor = reads.cursor,
      millisBehindLatest = millisBehind,
      answeredAt = reads.lastAnsweredAt,
      calls = reads.calls,
      throttledCalls = throttledCalls,
      corruptAggregates = corruptAggregates,
      failure = failure
    )
  }
}
