// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.client.{KinesisApi, KinesisApiException, KinesisRecord}
import io.github.sparkkinesis.config.PrefetchConfig
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.kpl.Deaggregation
import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardKey, ShardPosition}
import io.github.sparkkinesis.util.Clock

/**
 * Reads exactly the records of one shard after `start` up to and including the record at `end` (or, with
 * None, to the end of the closed shard), a range the driver fixed for a batch: never more, never less. A
 * batch reads so a range whose prefetched block is gone, and it reads as prefetching does: through
 * [[PolledReads]] (its pacing, its rule for throttled calls, its renewal of expired iterators), with
 * [[ReadProgress]] and [[Deaggregation]]; either end may fall inside a KPL aggregate. Records trimmed before
 * they were read fail with a data-loss error unless `failOnDataLoss` is false; a shard throttled without a
 * break for [[ShardRangeReader.MaxThrottledMs]] fails the task, which Spark then retries. Runs in one task
 * on an executor; not thread-safe.
 */
private[sparkkinesis] final class ShardRangeReader(
    api: KinesisApi,
    key: ShardKey,
    start: ShardPosition,
    end: Option[ShardPosition.After],
    config: PrefetchConfig,
    clock: Clock
) extends Iterator[KinesisRecord] {
  import ShardRangeReader._

  private val reads =
    new PolledReads(api, key, config, FetchCursor(None, notBeforeMs = 0L, config.maxRecordsPerFetch), clock)
  private val progress = new ReadProgress(key, start)
  private var pending: Iterator[KinesisRecord] = Iterator.empty
  private var finished = false
  private var emptyAnswersAtTip = 0
  private var throttledSince = Option.empty[Long]

  override def hasNext: Boolean = {
    while (!pending.hasNext && !finished) readOnce()
    pending.hasNext
  }

  override def next(): KinesisRecord = {
    if (!hasNext) throw new NoSuchElementException(s"$key has no records left in its range")
    pending.next()
  }

  private def readOnce(): Unit = {
    val wait = reads.nextStepAt - clock.nowMillis()
    if (wait > 0) clock.sleep(wait)
    val step =
      try reads.step(progress.resumeAt)
      catch {
        case e: KinesisApiException.TrimmedSequence =>
          throw KinesisErrors.dataLoss(key.stream, key.shardId, e.getMessage, "retention trimmed them")
      }
    step match {
      case ReadStep.Nothing => ()
      case ReadStep.Throttled(cause) =>
        val since = throttledSince.getOrElse(clock.nowMillis())
        throttledSince = Some(since)
        if (clock.nowMillis() - since >= MaxThrottledMs)
          throw KinesisErrors.kinesisCallFailed("GetRecords", key.stream, api.target, cause)
      case read: ReadStep.Read =>
        throttledSince = None
        take(read)
    }
  }

  private def take(read: ReadStep.Read): Unit = {
    val upToEnd = end.fold(read.records) { e =>
      read.records.takeWhile(r => SequenceNumbers.compare(r.sequenceNumber, e.sequenceNumber) <= 0)
    }
    progress.read(upToEnd)
    val (users, _) = Deaggregation.userRecords(key, upToEnd, start)
    pending = end.fold(users)(e => users.takeWhile(e.covers)).iterator
    val endReached = upToEnd.lastOption.exists(r => end.exists(_.sequenceNumber == r.sequenceNumber))
    if (upToEnd.size < read.records.size || endReached) finished = true
    else if (read.shardEnded) {
      if (end.isEmpty) finished = true else throw incomplete()
    } else if (read.records.isEmpty && read.millisBehindLatest == 0) {
      emptyAnswersAtTip += 1
      if (emptyAnswersAtTip > MaxEmptyAnswersAtTip) throw incomplete()
    }
  }

  private def incomplete() =
    KinesisErrors.rangeIncomplete(
      key.stream,
      key.shardId,
      start.toString,
      end.fold("the shard's end")(e => s"sequence number ${e.sequenceNumber}"),
      progress.lastSequenceNumber.getOrElse(start.toString)
    )
}

private[sparkkinesis] object ShardRangeReader {

  /** How long a shard may stay throttled before the task gives up (Spark then retries the task). */
  val MaxThrottledMs: Long = 5 * 60 * 1000

  /**
   * Empty answers at the shard's tip tolerated before the range is declared unreadable: the driver saw its
   * end, so it is there unless the stream lost it. With calls `minFetchPeriod` apart, 25 take 10 s by default.
   */
  val MaxEmptyAnswersAtTip = 25
}
