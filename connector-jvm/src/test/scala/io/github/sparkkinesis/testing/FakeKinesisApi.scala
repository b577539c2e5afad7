// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.nio.charset.StandardCharsets

import scala.collection.mutable

import io.github.sparkkinesis.client._
import io.github.sparkkinesis.offsets.SequenceNumbers

/**
 * An in-memory Kinesis for unit tests: streams of shards holding records, iterators that can be made to
 * expire, calls that can be made to throttle or fail, records that retention trims, closed shards that
 * expire, streams deleted and created again, enhanced fan-out consumers and their subscriptions, and
 * counters of the calls made. Thread-safe (synchronized).
 */
final class FakeKinesisApi(clock: ManualClock) extends KinesisApi {
  val target = "fake-kinesis (region us-east-1)"

  /** Its throttling answers, each a call as Kinesis answers them without the SDK retrying, are counted. */
  override def counting(errors: RateLimitErrors): KinesisApi = new CountingThrottles(this, errors)

  private final class Shard(var info: ShardInfo) {
    val records = mutable.ArrayBuffer.empty[KinesisRecord]
    var expired = false
  }

  private val streams = mutable.LinkedHashMap.empty[String, mutable.LinkedHashMap[String, Shard]]
  private val createdAt = mutable.Map.empty[String, Long]
  private var nextSequence = BigInt("49600000000000000000000000000000000000000000000000000000")
  private var iteratorEpoch = 0

  /** Calls made, by action. */
  val calls: mutable.Map[String, Int] = mutable.Map.empty.withDefaultValue(0)

  /** How many of the next GetRecords calls fail as throttled. */
  @volatile var throttleNextGetRecords = 0

  /** GetRecords reports no lag even when records are left, as Kinesis does for records of one millisecond. */
  @volatile var reportNoLag = false

  /** How many of the next ListShards calls fail as an internal error of Kinesis. */
  @volatile var failNextListShards = 0

  /** DescribeStreamSummary is denied, as with an IAM policy that leaves it out. */
  @volatile var denyDescribe = false

  /** By stream, the largest record DescribeStreamSummary says it takes; unnamed streams say nothing (1 MiB). */
  @volatile var maxRecordBytes = Map.empty[String, Long]

  /** The streams DescribeStreamSummary says place their records themselves (RecordDistributionStrategy AUTO). */
  @volatile var keysIgnored = Set.empty[String]

  /** Registered consumers: stream ARN and name to status and ARN. */
  private val consumers = mutable.LinkedHashMap.empty[(String, String), ConsumerInfo]
  private var consumerSerial = 0

  /** Open subscriptions, by consumer ARN and shard. */
  private val subscribed = mutable.Set.empty[(String, String)]

  /** How many events a subscription pushes before it ends, as Kinesis ends each after five minutes. */
  @volatile var eventsPerSubscription = Int.MaxValue

  /** Records per pushed event at most. */
  @volatile var recordsPerEvent = 1000

  /** Consumers stay CREATING for this many DescribeStreamConsumer calls after registering. */
  @volatile var describesUntilActive = 1

  /** How many of the next SubscribeToShard calls fail with ResourceInUse. */
  @volatile var subscriptionsInUse = 0

  def createStream(stream: String, shards: Int): Seq[String] = synchronized {
    require(!streams.contains(stream), s"$stream exists")
    createdAt(stream) = clock.nowMillis()
    streams(stream) = mutable.LinkedHashMap.empty
    (0 until shards).map(_ => newShard(stream, Nil))
  }

  def deleteStream(stream: String): Unit = synchronized {
    streams.remove(stream)
    createdAt.remove(stream)
  }

  /** Retention trims the oldest `count` records of a shard. */
  def trim(stream: String, shardId: String, count: Int): Unit = synchronized {
    streams(stream)(shardId).records.remove(0, count)
  }

  /** A closed shard's retention period ends: Kinesis no longer lists it or serves its records. */
  def expire(stream: String, shardId: String): Unit = synchronized {
    val shard = streams(stream)(shardId)
    require(shard.info.isClosed, s"$shardId is open")
    shard.expired = true
  }

  private def newShard(stream: String, parents: Seq[String]): String = {
    val id = f"shardId-${streams(stream).size}%012d"
    val info = ShardInfo(id, parents.headOption, parents.drop(1).headOption, nextSequence.toString, None)
    streams(stream).put(id, new Shard(info))
    id
  }

  def put(stream: String, shardId: String, data: String, partitionKey: String = "pk"): String =
    putBytes(stream, shardId, data.getBytes(StandardCharsets.UTF_8), partitionKey)

  def putBytes(stream: String, shardId: String, data: Array[Byte], partitionKey: String): String = synchronized {
    val shard = streams(stream)(shardId)
    require(!shard.info.isClosed, s"$shardId is closed")
    nextSequence += 1
    val seq = nextSequence.toString
    shard.records += KinesisRecord(partitionKey, data, seq, clock.nowMillis())
    seq
  }

  /** Closes `shardId` and opens two children; returns their ids. */
  def split(stream: String, shardId: String): (String, String) = synchronized {
    close(stream, shardId)
    (newShard(stream, Seq(shardId)), newShard(stream, Seq(shardId)))
  }

  /** Closes two shards and opens their merged child; returns its id. */
  def merge(stream: String, shardId: String, adjacent: String): String = synchronized {
    close(stream, shardId)
    close(stream, adjacent)
    newShard(stream, Seq(shardId, adjacent))
  }

  private def close(stream: String, shardId: String): Unit = {
    val shard = streams(stream)(shardId)
    nextSequence += 1
    shard.info = shard.info.copy(endingSequenceNumber = Some(nextSequence.toString))
  }

  /** Makes every iterator issued so far expire. */
  def expireIterators(): Unit = synchronized { iteratorEpoch += 1 }

  def records(stream: String, shardId: String): Seq[KinesisRecord] = synchronized {
    streams(stream)(shardId).records.toSeq
  }

  override def describeStream(stream: String): StreamSummary = synchronized {
    calls("DescribeStreamSummary") += 1
    reachable()
    val shards = streams.getOrElse(stream, throw notFound(stream))
    if (denyDescribe) throw new KinesisApiException.AccessDenied("DescribeStreamSummary", "not authorized", null)
    val arn = s"arn:aws:kinesis:us-east-1:000000000000:stream/$stream"
    StreamSummary(
      stream,
      arn,
      "ACTIVE",
      createdAt(stream),
      shards.values.count(!_.info.isClosed),
      maxRecordBytes = maxRecordBytes.get(stream),
      keysIgnored = keysIgnored(stream))
  }

  override def listShards(stream: String, pageSize: Int): Seq[ShardInfo] = synchronized {
    calls("ListShards") += 1
    reachable()
    if (failNextListShards > 0) {
      failNextListShards -= 1
      throw new KinesisApiException.Failed("InternalFailure", null)
    }
    streams.getOrElse(stream, throw notFound(stream)).values.filterNot(_.expired).map(_.info).toSeq
  }

  override def getShardIterator(stream: String, shardId: String, start: IteratorStart): String = synchronized {
    calls("GetShardIterator") += 1
    reachable()
    s"$stream|$shardId|${startIndex(stream, shardId, start)}|$iteratorEpoch"
  }

  private def startIndex(stream: String, shardId: String, start: IteratorStart): Int = synchronized {
    val shard = streams.getOrElse(stream, throw notFound(stream)).getOrElse(shardId, throw notFound(shardId))
    if (shard.expired) throw notFound(shardId)
    val records = shard.records
    def indexOf(seq: String) = records.indexWhere(_.sequenceNumber == seq) match {
      case -1 if records.headOption.forall(r => SequenceNumbers.compare(seq, r.sequenceNumber) < 0) =>
        throw new KinesisApiException.TrimmedSequence(s"$seq of $shardId is past the trim horizon", null)
      case -1 => throw new KinesisApiException.Failed(s"no record $seq in $shardId", null)
      case i => i
    }
    val index = start match {
      case IteratorStart.TrimHorizon => 0
      case IteratorStart.Latest => records.size
      case IteratorStart.AtTimestamp(ms) =>
        records.indexWhere(_.approximateArrivalMillis >= ms) match {
          case -1 => records.size
          case i => i
        }
      case IteratorStart.AtSequenceNumber(seq) => indexOf(seq)
      case IteratorStart.AfterSequenceNumber(seq) => indexOf(seq) + 1
    }
    index
  }

  override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch = synchronized {
    calls("GetRecords") += 1
    reachable()
    val Array(s, id, index, epoch) = iterator.split('|')
    require(s == stream && id == shardId, s"iterator $iterator used for $stream/$shardId")
    if (epoch.toInt < iteratorEpoch) throw new KinesisApiException.ExpiredIterator(s"$iterator expired", null)
    if (throttleNextGetRecords > 0) {
      throttleNextGetRecords -= 1
      throw new KinesisApiException.Throttled("Rate exceeded for shard", null)
    }
    val shard = streams.getOrElse(stream, throw notFound(stream)).getOrElse(shardId, throw notFound(shardId))
    val from = index.toInt
    val batch = shard.records.slice(from, from + limit).toVector
    val next = from + batch.size
    val atEnd = next >= shard.records.size
    val nextIterator = if (atEnd && shard.info.isClosed) None else Some(s"$stream|$shardId|$next|$epoch")
    RecordBatch(batch, nextIterator, if (atEnd || reportNoLag) 0L else 1000L)
  }

  /** How many of the next records put are turned down as throttled (the request itself succeeds). */
  @volatile var turnDownNextPuts = 0

  /** How many of the next PutRecords requests fail as a whole, throttled. */
  @volatile var throttleNextPutRequests = 0

  /** While true, every call fails as when Kinesis cannot be reached. */
  @volatile var down = false

  /** While set, every call fails with what it makes, as when the credentials cannot be had (STS is out of reach). */
  @volatile var failingWith: Option[() => KinesisApiException] = None

  private def reachable(): Unit = {
    if (down) throw new KinesisApiException.Unreachable("Connection refused", null)
    failingWith.foreach(failure => throw failure())
  }

  /** Failures the next PutRecords requests fail with as a whole, one each, in order. */
  val putRequestFailures: mutable.Queue[KinesisApiException] = mutable.Queue.empty

  /** Records a PutRecords request carried, per request. */
  val putRequests: mutable.ArrayBuffer[Int] = mutable.ArrayBuffer.empty

  override def putRecords(stream: String, records: Seq[PutRecord]): Seq[PutResult] = synchronized {
    calls("PutRecords") += 1
    reachable()
    val shards = streams.getOrElse(stream, throw notFound(stream))
    if (throttleNextPutRequests > 0) {
      throttleNextPutRequests -= 1
      throw new KinesisApiException.Throttled("Rate exceeded for stream", null)
    }
    if (putRequestFailures.nonEmpty) throw putRequestFailures.dequeue()
    putRequests += records.size
    records.map { r =>
      if (turnDownNextPuts > 0) {
        turnDownNextPuts -= 1
        PutResult(None, None, Some("ProvisionedThroughputExceededException"))
      } else {
        val shard = shards.values.find(!_.info.isClosed).get
        nextSequence += 1
        val seq = nextSequence.toString
        shard.records += KinesisRecord(r.partitionKey, r.data, seq, clock.nowMillis())
        PutResult(Some(shard.info.shardId), Some(seq), None)
      }
    }
  }

  private def streamOfArn(streamArn: String): String = synchronized {
    val name = streamArn.substring(streamArn.lastIndexOf('/') + 1)
    if (!streams.contains(name)) throw notFound(streamArn)
    name
  }

  private val describesLeft = mutable.Map.empty[String, Int]

  override def describeConsumer(streamArn: String, consumerName: String): Option[ConsumerInfo] = synchronized {
    calls("DescribeStreamConsumer") += 1
    reachable()
    streamOfArn(streamArn)
    consumers.get((streamArn, consumerName)).map { c =>
      val left = describesLeft.getOrElse(c.arn, 0)
      if (left > 0) {
        describesLeft(c.arn) = left - 1
        c
      } else {
        val active = c.copy(status = "ACTIVE")
        consumers((streamArn, consumerName)) = active
        active
      }
    }
  }

  override def describeConsumerByArn(consumerArn: String): Option[ConsumerInfo] = synchronized {
    consumers.collectFirst {
      case ((streamArn, name), c) if c.arn == consumerArn => describeConsumer(streamArn, name)
    }.flatten
  }

  override def registerConsumer(streamArn: String, consumerName: String): ConsumerInfo = synchronized {
    calls("RegisterStreamConsumer") += 1
    reachable()
    streamOfArn(streamArn)
    if (consumers.contains((streamArn, consumerName)))
      throw new KinesisApiException.InUse(s"consumer $consumerName exists", null)
    consumerSerial += 1
    val c =
      ConsumerInfo(consumerName, s"$streamArn/consumer/$consumerName:$consumerSerial", "CREATING", clock.nowMillis())
    consumers((streamArn, consumerName)) = c
    describesLeft(c.arn) = describesUntilActive
    c
  }

  override def listConsumers(streamArn: String): Seq[ConsumerInfo] = synchronized {
    calls("ListStreamConsumers") += 1
    reachable()
    streamOfArn(streamArn)
    consumers.collect { case ((arn, _), c) if arn == streamArn => c }.toSeq
  }

  override def deregisterConsumer(streamArn: String, consumerName: String): Unit = synchronized {
    calls("DeregisterStreamConsumer") += 1
    reachable()
    consumers.remove((streamArn, consumerName)).getOrElse(throw notFound(consumerName))
  }

  private def consumerExists(consumerArn: String): Boolean = synchronized(consumers.values.exists(_.arn == consumerArn))

  override def subscribeToShard(consumerArn: String, shardId: String, start: IteratorStart): ShardSubscription =
    synchronized {
      calls("SubscribeToShard") += 1
      reachable()
      if (!consumerExists(consumerArn)) throw notFound(consumerArn)
      if (subscriptionsInUse > 0) {
        subscriptionsInUse -= 1
        throw new KinesisApiException.InUse(s"another subscription of $consumerArn to $shardId is open", null)
      }
      if (subscribed.contains((consumerArn, shardId)))
        throw new KinesisApiException.InUse(s"another subscription of $consumerArn to $shardId is open", null)
      val stream = consumerArn.substring(consumerArn.indexOf("stream/") + 7, consumerArn.indexOf("/consumer/"))
      val index = startIndex(stream, shardId, start)
      subscribed += ((consumerArn, shardId))
      new FakeSubscription(consumerArn, stream, shardId, index)
    }

  /** Pushes what the shard holds from `index` on, an event per call of `next`, `eventsPerSubscription` in all. */
  private final class FakeSubscription(consumerArn: String, stream: String, shardId: String, var index: Int)
      extends ShardSubscription {
    private var events = 0
    private var open = true

    override def next(timeoutMs: Long): Option[SubscriptionEvent] = FakeKinesisApi.this.synchronized {
      if (!open || events >= eventsPerSubscription) {
        close()
        Some(SubscriptionEvent.Ended)
      } else if (!consumerExists(consumerArn)) {
        close()
        throw notFound(consumerArn)
      } else {
        val shard = streams.getOrElse(stream, throw notFound(stream))(shardId)
        val batch = shard.records.slice(index, index + recordsPerEvent).toVector
        index += batch.size
        events += 1
        val atEnd = index >= shard.records.size
        if (batch.isEmpty && !shard.info.isClosed) {
          // Kinesis pushes events without records too, a few seconds apart; here, after `timeoutMs`.
          clock.sleep(timeoutMs)
          val continuation = shard.records.lift(index - 1).map(_.sequenceNumber)
          Some(SubscriptionEvent.Records(Nil, continuation.orElse(Some(shard.info.startingSequenceNumber)), 0L, Nil))
        } else if (atEnd && shard.info.isClosed) {
          val children = streams(stream).values.filter(_.info.parents.contains(shardId)).map(_.info.shardId).toSeq
          Some(SubscriptionEvent.Records(batch, None, 0L, children))
        } else {
          val continuation = batch.lastOption.map(_.sequenceNumber).getOrElse(shard.info.startingSequenceNumber)
          Some(SubscriptionEvent.Records(batch, Some(continuation), if (atEnd || reportNoLag) 0L else 1000L, Nil))
        }
      }
    }

    override def close(): Unit = FakeKinesisApi.this.synchronized {
      open = false
      subscribed -= ((consumerArn, shardId))
    }
  }

  /** Subscriptions open now. */
  def openSubscriptions: Int = synchronized(subscribed.size)

  override def close(): Unit = ()

  private def notFound(what: String) = new KinesisApiException.ResourceNotFound(s"$what not found", null)
}
