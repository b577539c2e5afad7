package io.github.sparkkinesis.fetch

import java.util.concurrent.ConcurrentHashMap

import scala.annotation.tailrec
import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.{IteratorStart, KinesisApi, KinesisApiException}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Finds, on the driver, how far a shard can be read now, so that the driver fixes a batch's end before any
 * task reads: one GetRecords call of at most `maxRecordsPerFetch` records from the shard's position, whose
 * last sequence number becomes the batch's end in that shard. The iterator of each probe is kept for the
 * next one, so a shard is not asked for a new iterator every batch and stretches without records are
 * skipped once. A shard is asked at most once per `minIntervalMs` (Kinesis allows five GetRecords calls per
 * second and shard), however often Spark asks for offsets. Thread-safe: shards are probed in parallel, each
 * by one thread at a time.
 */
final class ShardTipProbe(api: KinesisApi, maxRecordsPerFetch: Int, minIntervalMs: Long, clock: Clock) {
  import ShardTipProbe._

  private val log = LoggerFactory.getLogger(getClass)
  private val cursors = new ConcurrentHashMap[ShardKey, Cursor]()
  private val behind = new ConcurrentHashMap[ShardKey, java.lang.Long]()
  private val throttled = new java.util.concurrent.atomic.AtomicLong()

  /** Per shard, Kinesis' MillisBehindLatest at the end of the last probe: how far the planned data lags. */
  def millisBehindLatest: Map[ShardKey, Long] = behind.asScala.map { case (k, v) => k -> v.longValue }.toMap

  /** GetRecords calls of probes that Kinesis throttled, since this probe was created. */
  def throttledCalls: Long = throttled.get()

  /** The position after the records available now, `from` if there are none, or ShardEnd. */
  def advance(key: ShardKey, from: ShardPosition): ShardPosition = probe(key, from, Long.MaxValue).position

  /**
   * Like [[advance]], but takes only records that arrived before `arrivedBefore` (epoch ms), and says
   * whether the shard is caught up with that instant: it has nothing more that arrived before it.
   */
  def probe(key: ShardKey, from: ShardPosition, arrivedBefore: Long): Probed = from.resumeAt match {
    case None => Probed(from, caughtUp = true)
    case Some(start) =>
      val cached = Option(cursors.get(key)).filter(_.position == from)
      cached match {
        case Some(cursor) if clock.nowMillis() - cursor.polledAt < minIntervalMs => Probed(from, caughtUp = false)
        case _ =>
          val iterator = cached.map(_.iterator).getOrElse(api.getShardIterator(key.stream, key.shardId, start))
          poll(key, from, start, iterator, arrivedBefore, polls = 1)
      }
  }

  @tailrec
  private def poll(
      key: ShardKey,
      from: ShardPosition,
      start: IteratorStart,
      iterator: String,
      arrivedBefore: Long,
      polls: Int
  ): Probed = {
    val answer =
      try Right(api.getRecords(key.stream, key.shardId, iterator, maxRecordsPerFetch))
      catch {
        case e: KinesisApiException.ExpiredIterator => Left(e)
        case e: KinesisApiException.Throttled => Left(e)
      }
    answer match {
      case Left(_: KinesisApiException.ExpiredIterator) if polls < MaxPolls =>
        cursors.remove(key)
        poll(key, from, start, api.getShardIterator(key.stream, key.shardId, start), arrivedBefore, polls + 1)
      case Left(e) =>
        if (e.isInstanceOf[KinesisApiException.Throttled]) throttled.incrementAndGet()
        log.info(s"Probing $key failed; trying again: $e")
        Probed(from, caughtUp = false)
      case Right(batch) =>
        behind.put(key, batch.millisBehindLatest)
        val kept = batch.records.takeWhile(_.approximateArrivalMillis < arrivedBefore)
        (kept.lastOption, batch.nextIterator) match {
          case (Some(last), _) if kept.size < batch.records.size =>
            // The rest arrived after the instant: stop here; a later probe needs a new iterator.
            cursors.remove(key)
            Probed(ShardPosition.After(last.sequenceNumber), caughtUp = true)
          case (None, _) if batch.records.nonEmpty =>
            cursors.remove(key)
            Probed(from, caughtUp = true)
          case (Some(last), next) =>
            val position = ShardPosition.After(last.sequenceNumber)
            next.fold[Unit](cursors.remove(key))(i => cursors.put(key, Cursor(position, i, clock.nowMillis())))
            Probed(position, caughtUp = next.isEmpty)
          case (None, None) =>
            cursors.remove(key)
            Probed(ShardPosition.ShardEnd, caughtUp = true)
          case (None, Some(next)) =>
            cursors.put(key, Cursor(from, next, clock.nowMillis()))
            if (batch.millisBehindLatest > 0 && polls < MaxPolls) poll(key, from, start, next, arrivedBefore, polls + 1)
            else Probed(from, caughtUp = batch.millisBehindLatest == 0)
        }
    }
  }

  /** Forgets shards the query no longer tracks. */
  def retain(keys: Set[ShardKey]): Unit = {
    cursors.keySet().removeIf(k => !keys.contains(k))
    behind.keySet().removeIf(k => !keys.contains(k))
  }
}

/** What a probe found: the shard's new position, and whether it has nothing more to give before a cut-off. */
final case class Probed(position: ShardPosition, caughtUp: Boolean)

object ShardTipProbe {

  /** Calls per probe while a shard answers nothing yet is still behind its tip. */
  val MaxPolls = 5

  /** Where the next probe of a shard continues, and when the shard was last asked. */
  private final case class Cursor(position: ShardPosition, iterator: String, polledAt: Long)
}
