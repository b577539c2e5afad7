package io.github.sparkkinesis.client

/**
 * The Kinesis calls the connector makes, in the connector's own types, so that the rest of the code never
 * sees an AWS SDK class and unit tests can use a fake. Implementations are thread-safe.
 *
 * Every failure of a call is thrown as a [[KinesisApiException]].
 */
trait KinesisApi extends AutoCloseable {

  /** Where calls go, for messages: endpoint and region. */
  def target: String

  def describeStream(stream: String): StreamSummary

  /** Every shard of the stream, open and closed, that Kinesis still lists; pages of `pageSize`. */
  def listShards(stream: String, pageSize: Int): Seq[ShardInfo]

  def getShardIterator(stream: String, shardId: String, start: IteratorStart): String

  /** At most `limit` records after `iterator`. */
  def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch

  /** Writes records; the result has one entry per record, in order. */
  def putRecords(stream: String, records: Seq[PutRecord]): Seq[PutResult]

  // ---- enhanced fan-out ----

  /** The consumer of that name registered with the stream, or None if there is none. */
  def describeConsumer(streamArn: String, consumerName: String): Option[ConsumerInfo]

  /**
   * Registers a consumer and returns it as Kinesis does at once, usually CREATING. A consumer of that name
   * that exists already fails with [[KinesisApiException.InUse]].
   */
  def registerConsumer(streamArn: String, consumerName: String): ConsumerInfo

  /** Every consumer registered with the stream. */
  def listConsumers(streamArn: String): Seq[ConsumerInfo]

  /** Starts deregistering a consumer; Kinesis removes it shortly after. */
  def deregisterConsumer(streamArn: String, consumerName: String): Unit

  /**
   * Subscribes a consumer to a shard (SubscribeToShard): Kinesis pushes the shard's records from `start` on,
   * for up to five minutes. No event is buffered beyond the one not yet taken; the caller closes it.
   */
  def subscribeToShard(consumerArn: String, shardId: String, start: IteratorStart): ShardSubscription

  override def close(): Unit
}

/**
 * Calls that change streams rather than read them: used by the integration tests to set up and reshard
 * streams, and by administrative tools. Thread-safe.
 */
trait KinesisAdminApi extends KinesisApi {

  /** Creates a provisioned stream and returns once it is ACTIVE. */
  def createStream(stream: String, shards: Int): Unit

  /** Deletes a stream and returns once Kinesis no longer knows it. */
  def deleteStream(stream: String): Unit

  /** Splits a shard at a hash key (decimal) and returns once the stream is ACTIVE again. */
  def splitShard(stream: String, shardId: String, newStartingHashKey: String): Unit

  /** Merges two adjacent shards and returns once the stream is ACTIVE again. */
  def mergeShards(stream: String, shardId: String, adjacentShardId: String): Unit

  /** Scales the stream uniformly and returns once it is ACTIVE again. */
  def updateShardCount(stream: String, shards: Int): Unit
}

final case class StreamSummary(name: String, arn: String, status: String, createdAtMillis: Long, openShards: Int)

/**
 * A shard as Kinesis lists it. A closed shard (after a split or merge) has an ending sequence number;
 * its children name it as parent.
 */
final case class ShardInfo(
    shardId: String,
    parentShardId: Option[String],
    adjacentParentShardId: Option[String],
    startingSequenceNumber: String,
    endingSequenceNumber: Option[String],
    hashKeyRange: (BigInt, BigInt) = (BigInt(0), ShardInfo.MaxHashKey)) {

  def parents: Seq[String] = parentShardId.toSeq ++ adjacentParentShardId.toSeq

  def isClosed: Boolean = endingSequenceNumber.isDefined
}

object ShardInfo {
  val MaxHashKey: BigInt = BigInt(2).pow(128) - 1
}

/**
 * One record as read from a shard, or one user record of a KPL aggregated record, which has the aggregate's
 * sequence number and arrival time, its own partition key and data, and its index in the aggregate as
 * `subSequenceNumber`. `data` is not copied: do not mutate it.
 */
final case class KinesisRecord(
    partitionKey: String,
    data: Array[Byte],
    sequenceNumber: String,
    approximateArrivalMillis: Long,
    subSequenceNumber: Option[Long] = None
)

/**
 * What one GetRecords call returned. `nextIterator` is None once a closed shard has been read to its end;
 * `millisBehindLatest` is how far the iterator is behind the shard's newest record.
 */
final case class RecordBatch(records: Seq[KinesisRecord], nextIterator: Option[String], millisBehindLatest: Long)

/** Where a shard iterator starts. */
sealed trait IteratorStart

object IteratorStart {
  case object TrimHorizon extends IteratorStart
  case object Latest extends IteratorStart
  final case class AtTimestamp(epochMillis: Long) extends IteratorStart
  final case class AtSequenceNumber(sequenceNumber: String) extends IteratorStart
  final case class AfterSequenceNumber(sequenceNumber: String) extends IteratorStart
}

/** An enhanced fan-out consumer of a stream. `status` is CREATING, ACTIVE or DELETING. */
final case class ConsumerInfo(name: String, arn: String, status: String, createdAtMillis: Long) {
  def isActive: Boolean = status == "ACTIVE"
}

/**
 * The records a SubscribeToShard subscription pushes, pulled one event at a time. Implementations are used
 * by one thread at a time.
 */
trait ShardSubscription extends AutoCloseable {

  /**
   * The next event, waiting at most `timeoutMs`; None if none came in that time. Once the subscription has
   * ended, [[SubscriptionEvent.Ended]] on every call. A failure of the subscription is thrown as a
   * [[KinesisApiException]].
   */
  def next(timeoutMs: Long): Option[SubscriptionEvent]

  /** Ends the subscription; idempotent. */
  override def close(): Unit
}

sealed trait SubscriptionEvent

object SubscriptionEvent {

  /**
   * Records pushed by Kinesis. `continuationSequenceNumber` is None once a closed shard has been read to
   * its end; `childShards` then names the shards that follow it.
   */
  final case class Records(
      records: Seq[KinesisRecord],
      continuationSequenceNumber: Option[String],
      millisBehindLatest: Long,
      childShards: Seq[String])
      extends SubscriptionEvent {

    def shardEnded: Boolean = continuationSequenceNumber.isEmpty || childShards.nonEmpty
  }

  /** The subscription ended normally (Kinesis ends each after five minutes); subscribe again to go on. */
  case object Ended extends SubscriptionEvent
}

final case class PutRecord(partitionKey: String, data: Array[Byte], explicitHashKey: Option[String] = None)

/** The outcome of one record of a PutRecords call: its place in the shard, or why it failed. */
final case class PutResult(shardId: Option[String], sequenceNumber: Option[String], errorCode: Option[String]) {
  def succeeded: Boolean = errorCode.isEmpty
}

/** A Kinesis failure the connector reacts to. */
sealed abstract class KinesisApiException(message: String, cause: Throwable) extends RuntimeException(message, cause)

object KinesisApiException {

  final class ResourceNotFound(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /**
   * A shard iterator was asked for at or after a sequence number Kinesis no longer has: retention trimmed
   * the records there.
   */
  final class TrimmedSequence(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /** A shard iterator older than five minutes; get a new one from the last sequence number read. */
  final class ExpiredIterator(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /**
   * ResourceInUse: the resource is busy, e.g. another subscription of the consumer to the shard is still
   * open, or a consumer of that name exists already.
   */
  final class InUse(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /** ProvisionedThroughputExceeded or LimitExceeded: slow down. */
  final class Throttled(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  final class AccessDenied(val action: String, message: String, cause: Throwable)
      extends KinesisApiException(message, cause)

  /** No credentials could be had to sign the call: none found, or the role could not be assumed. */
  final class CredentialsUnavailable(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /** The endpoint could not be reached at all. */
  final class Unreachable(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /**
   * Kinesis refused the request itself (HTTP 4xx): a value it does not accept, a KMS key that is disabled,
   * missing or denied. Sending it again cannot succeed.
   */
  final class Rejected(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /** Any other failure of a call (a 5xx, a timeout, a dropped connection), after the SDK's own retries. */
  final class Failed(message: String, cause: Throwable) extends KinesisApiException(message, cause)
}
