package io.github.sparkkinesis.fetch

import io.github.sparkkinesis.client.{IteratorStart, KinesisApi, KinesisApiException, KinesisRecord}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.kpl.Deaggregation
import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardKey, ShardPosition}
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Reads exactly the records of one shard after `start` up to and including the record at `end` (or, with
 * None, to the end of the closed shard), a range the driver fixed for a batch: never more, never less. KPL
 * aggregated records are read as their user records ([[Deaggregation]]); either end may fall inside one.
 * Expired iterators are renewed after the last record fetched; throttled calls are retried with backoff;
 * records trimmed before they were read fail with a data-loss error unless `failOnDataLoss` is false (see
 * [[ShardIterators]]). Runs in one task on an executor; not thread-safe.
 */
private[sparkkinesis] final class ShardRangeReader(
    api: KinesisApi,
    key: ShardKey,
    start: ShardPosition,
    end: Option[ShardPosition.After],
    maxRecordsPerFetch: Int,
    clock: Clock,
    failOnDataLoss: Boolean = true
) extends Iterator[KinesisRecord] {
  import ShardRangeReader._

  private val log = LoggerFactory.getLogger(getClass)
  private val throttling = new Backoff(minMs = 200, maxMs = 5000, clock)

  private var shardIterator = Option.empty[String]

  /** The last Kinesis record fetched whole (not necessarily returned yet): where a renewed iterator resumes. */
  private var lastFetched = start match {
    case ShardPosition.After(seq, None) => Some(seq)
    case _ => None
  }
  private var pending: Iterator[KinesisRecord] = Iterator.empty
  private var finished = false
  private var emptyPollsAtTip = 0

  override def hasNext: Boolean = {
    while (!pending.hasNext && !finished) fetch()
    pending.hasNext
  }

  override def next(): KinesisRecord = {
    if (!hasNext) throw new NoSuchElementException(s"$key has no records left in its range")
    pending.next()
  }

  private def fetch(): Unit = {
    val iterator = shardIterator.getOrElse(newIterator())
    val batch =
      try {
        api.getRecords(key.stream, key.shardId, iterator, maxRecordsPerFetch)
      } catch {
        case _: KinesisApiException.ExpiredIterator =>
          shardIterator = None
          return
        case e: KinesisApiException.Throttled =>
          val throttledFor = throttling.sleep()
          if (throttledFor > MaxThrottledMs)
            throw KinesisErrors.kinesisCallFailed("GetRecords", key.stream, api.target, e)
          return
      }
    throttling.reset()
    val upToEnd = end.fold(batch.records) { e =>
      batch.records.takeWhile(r => SequenceNumbers.compare(r.sequenceNumber, e.sequenceNumber) <= 0)
    }
    upToEnd.lastOption.foreach(r => lastFetched = Some(r.sequenceNumber))
    val (users, _) = Deaggregation.userRecords(key, upToEnd, start)
    pending = end.fold(users)(e => users.takeWhile(e.covers)).iterator
    val endReached = upToEnd.lastOption.exists(r => end.exists(_.sequenceNumber == r.sequenceNumber))
    if (upToEnd.size < batch.records.size || endReached) {
      finished = true
    } else {
      batch.nextIterator match {
        case None if end.isEmpty => finished = true
        case None => throw incomplete()
        case Some(next) =>
          shardIterator = Some(next)
          if (batch.records.isEmpty && batch.millisBehindLatest == 0) {
            emptyPollsAtTip += 1
            if (emptyPollsAtTip > MaxEmptyPollsAtTip) throw incomplete()
            clock.sleep(EmptyPollPauseMs)
          }
      }
    }
  }

  private def newIterator(): String = {
    val from = lastFetched match {
      case Some(seq) => IteratorStart.AfterSequenceNumber(seq)
      case None => start.resumeAt.getOrElse(throw new IllegalStateException(s"$key: nothing to read after $start"))
    }
    log.debug(s"New shard iterator for $key at $from")
    val iterator =
      try ShardIterators.open(api, key, from, failOnDataLoss)
      catch {
        case e: KinesisApiException.TrimmedSequence =>
          throw KinesisErrors.dataLoss(key.stream, key.shardId, e.getMessage, "retention trimmed them")
      }
    shardIterator = Some(iterator)
    iterator
  }

  private def incomplete() =
    KinesisErrors.rangeIncomplete(
      key.stream,
      key.shardId,
      start.toString,
      end.fold("the shard's end")(e => s"sequence number ${e.sequenceNumber}"),
      lastFetched.getOrElse(start.toString)
    )
}

private[sparkkinesis] object ShardRangeReader {

  /** How long a shard may stay throttled before the task gives up (Spark then retries the task). */
  val MaxThrottledMs: Long = 5 * 60 * 1000

  /** Empty answers at the shard's tip tolerated before the range is declared unreadable. */
  val MaxEmptyPollsAtTip = 25
  val EmptyPollPauseMs = 200L
}
