// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.client.{KinesisApi, KinesisApiException, KinesisRecord}
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.kpl.Deaggregation
import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardKey, ShardPosition}
import io.github.sparkkinesis.util.Clock

/**
 * Reads one shard, in every mode (prefetch tasks, real-time tasks, batch reads, ranges read again), and holds
 * what it read until its user stores it or hands it on. How records come is a strategy chosen by the driver
 * per shard: GetRecords polling ([[PolledReads]]), or, for an open shard under `consumerMode` efo, the
 * query's enhanced fan-out subscription ([[SubscribedReads]]). Kept here alike for both: where reading stands
 * ([[ReadProgress]]), the user records of KPL aggregates ([[Deaggregation]]), what was read, the shard's end,
 * and the end of the read itself ([[ReadEnd]]: none, an instant of arrival, or a last record).
 *
 * Which shard is called when is [[FetchLoop]]'s: it calls [[fetchOnce]] when [[nextCallAt]] comes.
 * Subscriptions open when the reader is closed are left in `subscriptions` for the next reader on this
 * executor. Not thread-safe: one thread drives it.
 */
private[sparkkinesis] final class ShardFetcher(
    api: KinesisApi,
    spec: ShardFetchSpec,
    config: ReadConfig,
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
  private var endReached = false
  private var throttledCalls = 0
  private var throttledSince = Option.empty[Long]
  private var lastThrottle = Option.empty[KinesisApiException]
  private var emptyAnswersAtTip = 0
  private var corrupt = 0

  def shard: ShardKey = key

  /** Where reading started. */
  def from: ShardPosition = spec.from

  /** What was read and not yet taken, in order (a copy: loops count with [[recordCount]]). */
  def records: Seq[KinesisRecord] = fetched.toVector

  /** How many user records are held. */
  def recordCount: Int = fetched.size

  /** The data bytes of the records held. */
  def bytes: Long = fetchedBytes

  /** The records read since the last call, handed over and forgotten. */
  def take(): Seq[KinesisRecord] = {
    val taken = fetched.toVector
    fetched.clear()
    fetchedBytes = 0
    taken
  }

  /**
   * After the last record read (all the user records of a KPL aggregate, or up to the read's last record
   * if it ends inside one), or where reading started if nothing was: where another reader goes on from.
   */
  def position: ShardPosition = spec.end match {
    case ReadEnd.Through(last) if endReached => last
    case _ => lastSequenceNumber.fold(spec.from)(ShardPosition.After(_))
  }

  /** The sequence number of the last Kinesis record read whole, if any was. */
  def lastSequenceNumber: Option[String] = progress.lastSequenceNumber

  /** MillisBehindLatest of the last answer, if there was one. */
  def millisBehindLatest: Option[Long] = millisBehind

  /** The shard is closed and was read to its end. */
  def shardEnded: Boolean = ended

  /** The read's own end ([[ReadEnd]]) is reached: nothing after it is read. */
  def readEndReached: Boolean = endReached

  /** Nothing more to read: the shard is closed and read, or the read's end is reached. */
  def finished: Boolean = ended || endReached

  /** Whether the last answer reached the shard's newest record: the reader has nothing to wait for here. */
  def caughtUp: Boolean = finished || atTip

  /** Answers in a row that found nothing new at the shard's tip. */
  def quietAnswers: Int = emptyAnswersAtTip

  /** Throttled answers in all, and since when every answer has been throttled (epoch ms), if it has. */
  def throttled: Int = throttledCalls
  def throttledWithoutBreakSince: Option[Long] = throttledSince

  /** The last throttled answer, if any. */
  def lastThrottled: Option[KinesisApiException] = lastThrottle

  /** Records that looked like KPL aggregates but were not, passed on whole. */
  def corruptAggregates: Int = corrupt

  /** The earliest instant of the next step. */
  def nextCallAt: Long = reads.nextStepAt

  /** Kinesis calls made, and when the last one Kinesis answered was made, if one was. */
  def calls: Int = reads.calls
  def lastAnsweredAt: Option[Long] = reads.lastAnsweredAt

  /** How the next reader of the shard goes on reading as this one did. */
  def cursor: FetchCursor = reads.cursor

  /** One step of reading: a GetRecords call, or waiting briefly for a pushed event. */
  def fetchOnce(): Unit =
    reads.step(progress.resumeAt) match {
      case ReadStep.Nothing => ()
      case ReadStep.Throttled(cause) =>
        throttledCalls += 1
        lastThrottle = Some(cause)
        if (throttledSince.isEmpty) throttledSince = Some(clock.nowMillis())
      case read: ReadStep.Read =>
        throttledSince = None
        millisBehind = Some(read.millisBehindLatest)
        atTip = read.atTip
        val kept = spec.end match {
          case ReadEnd.Open => read.records
          case ReadEnd.ArrivedBefore(instant, _) => read.records.takeWhile(_.approximateArrivalMillis < instant)
          case ReadEnd.Through(last) =>
            read.records.takeWhile(r => SequenceNumbers.compare(r.sequenceNumber, last.sequenceNumber) <= 0)
        }
        val (users, corruptHere) = Deaggregation.userRecords(key, kept, spec.from)
        corrupt += corruptHere
        val usersKept = spec.end match {
          case ReadEnd.Through(last) => users.takeWhile(r => last.covers(r.sequenceNumber, r.subSequenceNumber))
          case _ => users
        }
        usersKept.foreach { r =>
          fetched += r
          fetchedBytes += r.data.length
        }
        progress.read(kept)
        emptyAnswersAtTip = if (read.records.isEmpty && read.millisBehindLatest == 0) emptyAnswersAtTip + 1 else 0
        val lastReached = spec.end match {
          case ReadEnd.Through(last) => kept.lastOption.exists(_.sequenceNumber == last.sequenceNumber)
          case _ => false
        }
        if (kept.size < read.records.size || lastReached) {
          endReached = true
          reads.reset()
        } else {
          ended = read.shardEnded
          spec.end match {
            // An answer given at or after the end that holds everything up to the shard's tip: nothing older
            // is left, without another call to find nothing.
            case ReadEnd.ArrivedBefore(instant, largest) =>
              if (read.whole(largest) && read.asOf >= instant) endReached = true
            case _ => ()
          }
        }
    }

  /** Whether the shard is read through an enhanced fan-out subscription. */
  def subscribes: Boolean = spec.consumerArn.isDefined

  /** Releases what the reads hold open; a subscription waits in the pool for the next reader. */
  def close(): Unit = reads.close()
}
