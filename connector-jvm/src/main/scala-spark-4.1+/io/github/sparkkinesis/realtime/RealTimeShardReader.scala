// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import io.github.sparkkinesis.client.{KinesisApi, KinesisApiException}
import io.github.sparkkinesis.fetch.Backoff
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.prefetch.{FetchCursor, FetchFailure, RecordCursor, ShardFetchSpec, ShardFetcher}
import io.github.sparkkinesis.source.KinesisRecordSchema
import io.github.sparkkinesis.util.{Clock, SystemClock}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.streaming.{PartitionOffset, SupportsRealTimeRead}
import org.slf4j.LoggerFactory

/**
 * Reads one shard for a whole real-time batch: calls Kinesis as the shard's pacing allows, or takes the
 * events of its enhanced fan-out subscription (a [[ShardFetcher]], as a prefetch task does, with its
 * de-aggregation of KPL records), and hands each record on as a row as soon as it comes, until the batch's
 * deadline or the end of a closed shard. A subscription open at the end is left for the next batch's task
 * on this executor. A failed call is tried again with backoff within the batch, unless trying again cannot
 * help (the stream or the consumer is gone, access denied, records lost): then the task fails with the
 * error a user sees. Runs in one task on an executor; not thread-safe.
 */
private[sparkkinesis] final class RealTimeShardReader(
    partition: RealTimeInputPartition,
    api: KinesisApi,
    clock: Clock = SystemClock)
    extends RealTimeReads {
  import RealTimeShardReader._

  private val log = LoggerFactory.getLogger(getClass)
  private val shard = partition.shard
  private val fetcher = new ShardFetcher(
    api,
    ShardFetchSpec(
      shard,
      partition.from,
      FetchCursor(None, 0, partition.reading.maxRecordsPerFetch),
      consumerArn = partition.consumerArn),
    partition.reading,
    arrivedBefore = Long.MaxValue,
    clock
  )
  private val rows = new KinesisRecordSchema.RowWriter(shard)
  private var pending = RecordCursor.of(Iterator.empty)
  private var position: ShardPosition = partition.from
  private var current: InternalRow = _
  private var records = 0L
  private var failures = 0
  private val startedAt = clock.nowMillis()

  override def nextBefore(deadlineMs: Long): SupportsRealTimeRead.RecordStatus = {
    var found = pending.next()
    while (!found && !fetcher.finished && clock.nowMillis() < deadlineMs) {
      val wait = math.min(fetcher.nextCallAt, deadlineMs) - clock.nowMillis()
      if (wait > 0) clock.sleep(wait)
      else {
        fetchOnce(deadlineMs)
        found = pending.next()
      }
    }
    if (found) {
      records += 1
      position = pending.position
      current = rows.rowOf(pending)
      SupportsRealTimeRead.RecordStatus.newStatusWithArrivalTimeMs(pending.arrivalMillis)
    } else {
      if (fetcher.finished) position = ShardPosition.ShardEnd
      SupportsRealTimeRead.RecordStatus.newStatusWithoutArrivalTime(false)
    }
  }

  /** One call; a failure that trying again may mend waits out its backoff (within the batch) instead. */
  private def fetchOnce(deadlineMs: Long): Unit =
    try {
      fetcher.fetchOnce()
      failures = 0
      pending = RecordCursor.of(fetcher.take().iterator)
    } catch {
      case e: KinesisApiException =>
        val failure = FetchFailure.of(e, shard, subscribes = partition.consumerArn.isDefined, api.target)
        if (failure.kind == FetchFailure.Fatal || failure.kind == FetchFailure.ConsumerGone) throw failure.error
        failures += 1
        val pause = Backoff.pauseAfter(failures, RetryPauseMs, MaxRetryPauseMs)
        log.warn(s"Reading $shard in real time failed ($failures in a row); trying again in $pause ms: $e")
        clock.sleep(math.max(0L, math.min(pause, deadlineMs - clock.nowMillis())))
    }

  /** The Spark engine never calls it in real-time mode; a plain read would have no end. */
  override def next(): Boolean =
    throw new UnsupportedOperationException("A real-time read is driven by nextWithTimeout")

  override def get(): InternalRow = current

  override def getOffset(): PartitionOffset = RealTimeShardOffset(shard, position, fetcher.millisBehindLatest)

  override def close(): Unit = {
    fetcher.close()
    log.info(
      s"Read $shard in real time from ${partition.from} to $position: records=$records " +
        s"ms=${clock.nowMillis() - startedAt}")
  }
}

private[sparkkinesis] object RealTimeShardReader {

  /** Pauses after failed calls, doubling from the first to the last. */
  private val RetryPauseMs = 500L
  private val MaxRetryPauseMs = 5000L
}
