package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.client.{ApiFailures, KinesisApiException}
import io.github.sparkkinesis.errors.{KinesisErrors, KinesisException, RemoteFailure}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * A block of prefetched records in Spark's BlockManager: its id there, and the executor that stored it.
 * Block ids are Spark's `input-<streamId>-<uniqueId>`, with a `streamId` drawn by each source (see
 * [[BlockRef.newStreamId]]) and a `uniqueId` made of the task attempt that stored it.
 */
final case class BlockRef(streamId: Int, uniqueId: Long, executorId: String, host: String) {

  /** Spark's notation for "run where this executor is" as a preferred location of a task. */
  def preferredLocation: String = s"executor_${host}_$executorId"

  def name: String = s"input-$streamId-$uniqueId"
}

object BlockRef {

  /**
   * A block id namespace for one source: at least 2^30, far above the ids DStream receivers count up from
   * 0, and never negative, because executors serving a block to another parse its name as digits only.
   */
  def newStreamId(): Int = (1 << 30) + scala.util.Random.nextInt(Int.MaxValue - (1 << 30))
}

/**
 * A stretch of one shard that the prefetcher has read: the records after `from` up to `to`. A stretch with
 * records ends after its last record (see [[ShardPosition.After]]) and is held in `block`; the end of a
 * closed shard is a stretch without records from the last position to `ShardEnd`. Stretches of a shard follow one another:
 * each starts where the previous one ends.
 *
 * @param order when the catalog received it, across all shards: older data is planned first
 */
final case class Segment(
    shard: ShardKey,
    from: ShardPosition,
    to: ShardPosition,
    records: Long,
    bytes: Long,
    block: Option[BlockRef],
    order: Long = 0) {

  /** The position of its last record, if it has records. */
  def lastRecord: Option[ShardPosition.After] = to match {
    case a: ShardPosition.After => Some(a)
    case _ => None
  }

  /** Whether this stretch is wholly before or at `position` (already read). */
  def endsAtOrBefore(position: ShardPosition): Boolean = Segment.atOrBefore(to, position)
}

object Segment {

  /** Whether a shard read up to `a` has read nothing beyond `b`: `a` is at or before `b`. */
  def atOrBefore(a: ShardPosition, b: ShardPosition): Boolean = (a, b) match {
    case (x, y) if x == y => true
    case (_, ShardPosition.ShardEnd) => true
    case (ShardPosition.ShardEnd, _) => false
    case (x: ShardPosition.After, y: ShardPosition.After) => x.notAfter(y)
    case (_: ShardPosition.After, _) => false
    case (_, _) => false
  }
}

/**
 * How the prefetcher reads a shard, carried from one prefetch task to the next so that pacing, throttling
 * and the open shard iterator survive the end of a task.
 *
 * @param iterator        a shard iterator positioned at the shard's prefetch position, if one is open
 * @param notBeforeMs     the shard's next GetRecords call is not before this instant (epoch ms)
 * @param recordsPerCall  records asked for per call: maxRecordsPerFetch, halved while throttled
 * @param executor        where the last task ran (Spark's `executor_<host>_<id>`): an enhanced fan-out
 *                        subscription it left open waits there for the next task
 */
final case class FetchCursor(
    iterator: Option[String],
    notBeforeMs: Long,
    recordsPerCall: Int,
    executor: Option[String] = None)

/**
 * One shard of a prefetch task: where its data starts and how to go on reading it.
 *
 * @param closed      Kinesis listed the shard as closed by a reshard
 * @param consumerArn read through this enhanced fan-out consumer's subscription; None: by polling
 */
final case class ShardFetchSpec(
    shard: ShardKey,
    from: ShardPosition,
    cursor: FetchCursor,
    closed: Boolean = false,
    consumerArn: Option[String] = None)

/**
 * A failed Kinesis call of a prefetch task, as data, so that the driver decides what follows: `error` is
 * the error a user would see for it (made on the executor by `ApiFailures`, with its cause copied into a
 * [[io.github.sparkkinesis.errors.RemoteFailure]] so that it always serializes), `kind` what the driver does.
 */
final case class FetchFailure(kind: FetchFailure.Kind, error: KinesisException)

object FetchFailure {
  sealed trait Kind extends Serializable

  /** Kinesis could not be reached, or failed the call (a 5xx, a timeout): an outage, bounded by outageTimeout. */
  case object Transient extends Kind

  /** Trying again cannot help: the stream is gone, access or credentials denied, the request refused, records lost. */
  case object Fatal extends Kind

  /** The enhanced fan-out consumer the task subscribed with is gone: the driver registers it again. */
  case object ConsumerGone extends Kind

  /** Anything else (a subscription still in use, say): tried again, failing the query when it persists. */
  case object Other extends Kind

  /** The failure of a call for `shard`, made at `target`, as the driver gets it. */
  def of(e: KinesisApiException, shard: ShardKey, subscribes: Boolean, target: String): FetchFailure = {
    val action = e match {
      case denied: KinesisApiException.AccessDenied => denied.action
      case _ if subscribes => "SubscribeToShard"
      case _ => "GetRecords"
    }
    val cause = RemoteFailure.of(e)
    def userFacing = ApiFailures.toUserFacing(e, action, shard.stream, target, "read", cause = cause)
    e match {
      case _: KinesisApiException.ResourceNotFound if subscribes =>
        FetchFailure(ConsumerGone, KinesisErrors.kinesisCallFailed(action, shard.stream, target, cause))
      case _: KinesisApiException.TrimmedSequence =>
        FetchFailure(Fatal, KinesisErrors.dataLoss(shard.stream, shard.shardId, e.getMessage, "retention trimmed them"))
      case _ if ApiFailures.outage(e) => FetchFailure(Transient, userFacing)
      case _ if ApiFailures.retryable(e) => FetchFailure(Other, userFacing)
      case _: KinesisApiException.InUse | _: KinesisApiException.ExpiredIterator => FetchFailure(Other, userFacing)
      case _ => FetchFailure(Fatal, userFacing)
    }
  }
}

/**
 * What a prefetch task did with one shard.
 *
 * @param from        the position the task started from (the driver accepts the data only if it still is)
 * @param data        the records read, as a block, if there were any
 * @param reachedEnd  the shard is closed and read to its end
 * @param cutoffReached under Trigger.AvailableNow: nothing more arrived before the run's start
 * @param millisBehindLatest Kinesis' MillisBehindLatest after the last call, if a call succeeded
 * @param corruptAggregates records that looked like KPL aggregates but were not, passed on whole
 */
final case class ShardFetchOutcome(
    shard: ShardKey,
    from: ShardPosition,
    data: Option[Segment],
    reachedEnd: Boolean,
    cutoffReached: Boolean,
    cursor: FetchCursor,
    millisBehindLatest: Option[Long],
    calls: Int,
    throttledCalls: Int,
    corruptAggregates: Int,
    failure: Option[FetchFailure])
