package io.github.sparkkinesis.prefetch

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.client.{IteratorStart, KinesisApi, KinesisApiException, KinesisRecord}
import io.github.sparkkinesis.config.PrefetchConfig
import io.github.sparkkinesis.fetch.ShardIterators
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Reads one shard for one prefetch task, one paced GetRecords call at a time, and holds what it read until
 * the task stores it. Per shard it keeps Kinesis' limits:
 *
 *  - at most `maxRecordsPerFetch` records per call;
 *  - calls at least `minFetchPeriod` apart;
 *  - on average at most `maxFetchRate`: after a call that returned `b` bytes the next waits `b / rate`;
 *  - when throttled, half as many records per call and a five-second pause; the size doubles back with each
 *    call that succeeds.
 *
 * Under Trigger.AvailableNow (`arrivedBefore` < Long.MaxValue) it keeps only records that arrived before
 * the run's start and stops once it has them all. Not thread-safe: one thread drives it.
 */
final class ShardFetcher(
    api: KinesisApi,
    spec: ShardFetchSpec,
    config: PrefetchConfig,
    arrivedBefore: Long,
    clock: Clock) {
  import ShardFetcher._

  private val log = LoggerFactory.getLogger(getClass)
  private val key = spec.shard

  private var iterator = spec.cursor.iterator
  private var notBefore = spec.cursor.notBeforeMs
  private var recordsPerCall = spec.cursor.recordsPerCall
  private val fetched = ArrayBuffer.empty[KinesisRecord]
  private var fetchedBytes = 0L
  private var lastSequenceNumber = spec.from match {
    case ShardPosition.After(seq) => Some(seq)
    case _ => None
  }
  private var millisBehind = Option.empty[Long]
  private var atTip = false
  private var ended = spec.from == ShardPosition.ShardEnd
  private var cutoffReached = false
  private var calls = 0
  private var throttledCalls = 0

  def records: Seq[KinesisRecord] = fetched.toSeq
  def bytes: Long = fetchedBytes

  /** Nothing more to read in this task: the shard is closed and read, or the cut-off is reached. */
  def finished: Boolean = ended || cutoffReached

  /**
   * Whether the last call reached the shard's newest record, so the task has nothing to wait for here: it
   * was not behind (MillisBehindLatest 0) and returned fewer records than asked for. Kinesis computes the
   * lag from arrival times, so records that arrived in the same millisecond can show a lag of 0 while more
   * of them are left; a full answer is therefore never taken for the tip.
   */
  def caughtUp: Boolean = finished || atTip

  /** The earliest instant the next call may be made. */
  def nextCallAt: Long = notBefore

  /** Makes one GetRecords call (the caller waited until [[nextCallAt]]). */
  def fetchOnce(): Unit = {
    val startedAt = clock.nowMillis()
    val current = iterator.getOrElse(openIterator())
    val recordsAsked = recordsPerCall
    val answer =
      try Right(api.getRecords(key.stream, key.shardId, current, recordsAsked))
      catch {
        case e: KinesisApiException.ExpiredIterator => Left(e)
        case e: KinesisApiException.Throttled => Left(e)
      }
    calls += 1
    answer match {
      case Left(_: KinesisApiException.ExpiredIterator) =>
        log.debug(s"Shard iterator of $key expired; renewing it after $lastSequenceNumber")
        iterator = None
      case Left(_) =>
        throttledCalls += 1
        recordsPerCall = math.max(1, recordsPerCall / 2)
        notBefore = startedAt + ThrottlePauseMs
        log.warn(s"Hit rate limit. Sleeping for 5 seconds. ($key; next calls ask for $recordsPerCall records)")
      case Right(batch) =>
        recordsPerCall = math.min(config.maxRecordsPerFetch, recordsPerCall * 2)
        millisBehind = Some(batch.millisBehindLatest)
        atTip = batch.millisBehindLatest == 0 && batch.records.size < recordsAsked
        val kept = batch.records.takeWhile(_.approximateArrivalMillis < arrivedBefore)
        kept.foreach { r =>
          fetched += r
          fetchedBytes += r.data.length
        }
        kept.lastOption.foreach(r => lastSequenceNumber = Some(r.sequenceNumber))
        if (kept.size < batch.records.size) {
          cutoffReached = true
          iterator = None
        } else {
          iterator = batch.nextIterator
          ended = batch.nextIterator.isEmpty
          // Nothing at all after the last record, asked after the cut-off: nothing older is left.
          if (batch.records.isEmpty && batch.millisBehindLatest == 0 && startedAt >= arrivedBefore)
            cutoffReached = true
        }
        val callBytes = batch.records.iterator.map(_.data.length.toLong).sum
        notBefore = startedAt + math.max(config.minFetchPeriodMs, callBytes * 1000 / config.maxFetchBytesPerSecond)
    }
  }

  private def openIterator(): String = {
    val start = lastSequenceNumber match {
      case Some(seq) => Some(IteratorStart.AfterSequenceNumber(seq))
      case None => spec.from.resumeAt
    }
    val opened = ShardIterators.open(
      api,
      key,
      start.getOrElse(throw new IllegalStateException(s"$key has nothing to read after ${spec.from}")),
      config.failOnDataLoss
    )
    iterator = Some(opened)
    opened
  }

  /** What this task did with the shard; `block` holds the records, if there were any. */
  def outcome(block: Option[BlockRef], failure: Option[FetchFailure]): ShardFetchOutcome = {
    val data = lastSequenceNumber.filter(_ => fetched.nonEmpty).map { last =>
      Segment(
        key,
        spec.from,
        ShardPosition.After(last),
        fetched.size.toLong,
        fetchedBytes,
        block,
        lastArrivalMs = fetched.last.approximateArrivalMillis)
    }
    ShardFetchOutcome(
      shard = key,
      from = spec.from,
      data = data,
      reachedEnd = ended,
      cutoffReached = cutoffReached,
      cursor = FetchCursor(iterator, notBefore, recordsPerCall),
      millisBehindLatest = millisBehind,
      calls = calls,
      throttledCalls = throttledCalls,
      failure = failure
    )
  }
}

object ShardFetcher {

  /** How long a throttled shard rests, as the Databricks source's log line says. */
  val ThrottlePauseMs = 5000L
}
