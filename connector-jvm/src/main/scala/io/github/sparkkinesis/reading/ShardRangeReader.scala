// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.{KinesisApi, KinesisRecord}
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Reads exactly the records of one shard after `start` up to `end`, a range the driver fixed: never more,
 * never less. `end` is the record at a position, included ([[ReadEnd.Through]]); the records that arrived
 * before an instant ([[ReadEnd.ArrivedBefore]]); or, with [[ReadEnd.Open]], the end of the closed shard. A
 * batch read reads its ranges so, and a micro-batch the ranges whose prefetched blocks are gone. It reads
 * by polling, as every mode reads ([[FetchLoop]] over a [[ShardFetcher]]: the same pacing, the same rest and
 * halved calls when throttled, the same renewal of expired iterators and de-aggregation); either end may
 * fall inside a KPL aggregate.
 *
 * Giving up is its own: records trimmed before they were read fail with a data-loss error unless
 * `failOnDataLoss` is false; failed calls are tried again with backoff for as long as `outageTimeout`
 * allows; a shard throttled without a break for [[ShardRangeReader.MaxThrottledMs]] fails the task, which
 * Spark then retries; a range whose end never comes fails with `KINESIS_RANGE_INCOMPLETE`. `halt` is called
 * between calls and may throw to stop the reading (a task Spark kills). Runs in one task on an executor; not
 * thread-safe.
 */
private[sparkkinesis] final class ShardRangeReader(
    api: KinesisApi,
    key: ShardKey,
    start: ShardPosition,
    end: ReadEnd,
    config: ReadConfig,
    clock: Clock,
    halt: () => Unit = () => ()
) extends Iterator[KinesisRecord] {
  import ShardRangeReader._

  private val fetcher =
    new ShardFetcher(api, ShardFetchSpec.fresh(key, start, config.maxRecordsPerFetch, end = end), config, clock)
  private val loop = new FetchLoop(IndexedSeq(fetcher), clock, api.target)
  private var pending: Iterator[KinesisRecord] = Iterator.empty

  override def hasNext: Boolean = {
    while (!pending.hasNext && !finished) {
      halt()
      readOnce()
    }
    pending.hasNext
  }

  override def next(): KinesisRecord = {
    if (!hasNext) throw new NoSuchElementException(s"$key has no records left in its range")
    pending.next()
  }

  /** Everything of the range was read (and taken, but for what [[pending]] holds). */
  private def finished: Boolean = loop.done

  private def readOnce(): Unit =
    loop.callNext(Long.MaxValue) match {
      case Some(FetchLoop.Called(_)) =>
        pending = fetcher.take().iterator
        checkProgress()
      case Some(FetchLoop.Failed(_, failure, cause, failingForMs)) =>
        if (failure.kind == FetchFailure.Fatal || config.outageTimeoutMs.exists(failingForMs >= _))
          throw failure.error
        val pause = loop.retryLater(0)
        log.info(s"Reading $key from $start has failed for $failingForMs ms; trying again in $pause ms: $cause")
      case None => ()
    }

  /** Fails a range that cannot be read to its end: the shard ended first, its end never comes, or throttled. */
  private def checkProgress(): Unit = {
    if (fetcher.shardEnded && !fetcher.readEndReached && end.isInstanceOf[ReadEnd.Through]) throw incomplete()
    if (!fetcher.finished && fetcher.quietAnswers > MaxEmptyAnswersAtTip && !end.isInstanceOf[ReadEnd.ArrivedBefore])
      throw incomplete()
    fetcher.throttledWithoutBreakSince.filter(clock.nowMillis() - _ >= MaxThrottledMs).foreach { _ =>
      throw KinesisErrors.kinesisCallFailed("GetRecords", key.stream, api.target, fetcher.lastThrottled.orNull)
    }
  }

  private def incomplete() =
    KinesisErrors.rangeIncomplete(
      key.stream,
      key.shardId,
      start.toString,
      end match {
        case ReadEnd.Through(last) => s"sequence number ${last.sequenceNumber}"
        case other => s"the shard's end ($other)"
      },
      fetcher.lastSequenceNumber.getOrElse(start.toString)
    )
}

private[sparkkinesis] object ShardRangeReader {
  private val log = LoggerFactory.getLogger(classOf[ShardRangeReader])

  /** How long a shard may stay throttled before the task gives up (Spark then retries the task). */
  val MaxThrottledMs: Long = 5 * 60 * 1000

  /**
   * Empty answers at the shard's tip tolerated before the range is declared unreadable: the driver saw its
   * end, so it is there unless the stream lost it. With calls `minFetchPeriod` apart, 25 take 10 s by default.
   */
  val MaxEmptyAnswersAtTip = 25
}
