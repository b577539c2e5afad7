// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.{KinesisApi, KinesisRecord}
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Reads exactly the records of ranges the driver fixed ([[ShardRange]]), never more, never less, several
 * shards on one thread: each call goes to the range's shard due first ([[FetchLoop]] over a
 * [[ShardFetcher]] each, so with the pacing, throttling rule, iterator renewal and de-aggregation of every
 * mode), and a range waits for the ranges it comes `after` to be read to their ends. `end` may be the record
 * at a position, included ([[ReadEnd.Through]]); the records that arrived before an instant
 * ([[ReadEnd.ArrivedBefore]]); or, with [[ReadEnd.Open]], the end of the closed shard. Either end may fall
 * inside a KPL aggregate. A batch read's task reads its ranges so, and a micro-batch a range whose
 * prefetched block is gone ([[ShardRangeReader]], one range).
 *
 * Giving up: records trimmed before they were read fail with a data-loss error unless `failOnDataLoss`
 * is false; failed calls go as [[FailurePolicy]] says for every mode (tried again until `outageTimeout`,
 * then `KINESIS_UNAVAILABLE` for an outage). Its own limits besides: a shard throttled without a break for
 * [[ShardRangesReader.MaxThrottledMs]] fails the task, which Spark then retries; a range whose end never
 * comes fails with `KINESIS_RANGE_INCOMPLETE`. `halt` is called between calls and may throw to stop the
 * reading (a task Spark kills). Runs in one task on an executor; not thread-safe.
 */
private[sparkkinesis] final class ShardRangesReader(
    api: KinesisApi,
    ranges: IndexedSeq[ShardRange],
    config: ReadConfig,
    clock: Clock,
    halt: () => Unit = () => ()) {
  import ShardRangesReader._

  private val fetchers = ranges.map { r =>
    new ShardFetcher(api, ShardFetchSpec.fresh(r.shard, r.from, config.maxRecordsPerFetch, end = r.end), config, clock)
  }
  private val loop = new FetchLoop(fetchers, clock, api.target)

  /** For each range, the ranges of this reader it waits for. */
  private val waitsFor = ranges.map(r => ranges.indices.filter(j => r.after.contains(ranges(j).shard)))

  private def ready(i: Int): Boolean = waitsFor(i).forall(j => !loop.reading(j))

  /**
   * The next records read, in order within their range, with the range's index; None once every range is
   * read to its end.
   */
  def next(): Option[(Int, Seq[KinesisRecord])] = {
    var read = Option.empty[(Int, Seq[KinesisRecord])]
    while (read.isEmpty && !loop.done) {
      halt()
      loop.callNext(Long.MaxValue, ready = ready) match {
        case Some(FetchLoop.Called(i)) =>
          val records = fetchers(i).take()
          checkProgress(i)
          if (records.nonEmpty) read = Some(i -> records)
        case Some(FetchLoop.Failed(i, failure, cause, failingForMs)) =>
          val shard = ranges(i).shard
          FailurePolicy.decide(
            failure,
            shard,
            failingForMs,
            config.outageTimeoutMs,
            api.target,
            clock.nowMillis()) match {
            case FailurePolicy.Fail(error) => throw error
            case FailurePolicy.Poll => throw failure.error // a range is always polled: no consumer to lose
            case FailurePolicy.TryAgain =>
              val pause = loop.retryLater(i)
              log.info(s"Reading ${ranges(i)} has failed for $failingForMs ms; trying again in $pause ms: $cause")
          }
        case None => ()
      }
    }
    read
  }

  /** Fails a range that cannot be read to its end: the shard ended first, its end never comes, or throttled. */
  private def checkProgress(i: Int): Unit = {
    val (range, fetcher) = (ranges(i), fetchers(i))
    if (fetcher.shardEnded && !fetcher.readEndReached && range.end.isInstanceOf[ReadEnd.Through])
      throw incomplete(i)
    if (!fetcher.finished && fetcher.quietAnswers > MaxEmptyAnswersAtTip && !range.end
        .isInstanceOf[ReadEnd.ArrivedBefore])
      throw incomplete(i)
    fetcher.throttledWithoutBreakSince.filter(clock.nowMillis() - _ >= MaxThrottledMs).foreach { _ =>
      throw KinesisErrors.kinesisCallFailed("GetRecords", range.shard.stream, api.target, fetcher.lastThrottled.orNull)
    }
  }

  private def incomplete(i: Int) = {
    val range = ranges(i)
    KinesisErrors.rangeIncomplete(
      range.shard.stream,
      range.shard.shardId,
      range.from.toString,
      range.end match {
        case ReadEnd.Through(last) => s"sequence number ${last.sequenceNumber}"
        case other => s"the shard's end ($other)"
      },
      fetchers(i).lastSequenceNumber.getOrElse(range.from.toString)
    )
  }
}

private[sparkkinesis] object ShardRangesReader {
  private val log = LoggerFactory.getLogger(classOf[ShardRangesReader])

  /** How long a shard may stay throttled before the task gives up (Spark then retries the task). */
  val MaxThrottledMs: Long = 5 * 60 * 1000

  /**
   * Empty answers at the shard's tip tolerated before the range is declared unreadable: the driver saw its
   * end, so it is there unless the stream lost it. With calls `minFetchPeriod` apart, 25 take 10 s by default.
   */
  val MaxEmptyAnswersAtTip = 25
}
