package io.github.sparkkinesis.testing

import java.nio.charset.StandardCharsets

import scala.collection.mutable

import io.github.sparkkinesis.client._

/**
 * An in-memory Kinesis for unit tests: streams of shards holding records, iterators that can be made to
 * expire, calls that can be made to throttle, and counters of the calls made. Thread-safe (synchronized).
 */
final class FakeKinesisApi(clock: ManualClock) extends KinesisApi {
  val target = "fake-kinesis (region us-east-1)"

  private final class Shard(var info: ShardInfo) {
    val records = mutable.ArrayBuffer.empty[KinesisRecord]
  }

  private val streams = mutable.LinkedHashMap.empty[String, mutable.LinkedHashMap[String, Shard]]
  private var nextSequence = BigInt("49600000000000000000000000000000000000000000000000000000")
  private var nextShardNumber = 0
  private var iteratorEpoch = 0

  /** Calls made, by action. */
  val calls: mutable.Map[String, Int] = mutable.Map.empty.withDefaultValue(0)

  /** How many of the next GetRecords calls fail as throttled. */
  @volatile var throttleNextGetRecords = 0

  /** GetRecords reports no lag even when records are left, as Kinesis does for records of one millisecond. */
  @volatile var reportNoLag = false

  def createStream(stream: String, shards: Int): Seq[String] = synchronized {
    val created = (0 until shards).map(_ => newShard(stream, Nil))
    created
  }

  private def newShard(stream: String, parents: Seq[String]): String = {
    val id = f"shardId-$nextShardNumber%012d"
    nextShardNumber += 1
    val info = ShardInfo(id, parents.headOption, parents.drop(1).headOption, nextSequence.toString, None)
    streams.getOrElseUpdate(stream, mutable.LinkedHashMap.empty).put(id, new Shard(info))
    id
  }

  def put(stream: String, shardId: String, data: String, partitionKey: String = "pk"): String = synchronized {
    val shard = streams(stream)(shardId)
    require(!shard.info.isClosed, s"$shardId is closed")
    nextSequence += 1
    val seq = nextSequence.toString
    shard.records += KinesisRecord(partitionKey, data.getBytes(StandardCharsets.UTF_8), seq, clock.nowMillis())
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
    val shards = streams.getOrElse(stream, throw notFound(stream))
    StreamSummary(stream, s"arn:aws:kinesis:us-east-1:000000000000:stream/$stream", "ACTIVE", 0L, shards.size)
  }

  override def listShards(stream: String, pageSize: Int): Seq[ShardInfo] = synchronized {
    calls("ListShards") += 1
    streams.getOrElse(stream, throw notFound(stream)).values.map(_.info).toSeq
  }

  override def getShardIterator(stream: String, shardId: String, start: IteratorStart): String = synchronized {
    calls("GetShardIterator") += 1
    val shard = streams.getOrElse(stream, throw notFound(stream)).getOrElse(shardId, throw notFound(shardId))
    val records = shard.records
    def indexOf(seq: String) = records.indexWhere(_.sequenceNumber == seq) match {
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
    s"$stream|$shardId|$index|$iteratorEpoch"
  }

  override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch = synchronized {
    calls("GetRecords") += 1
    val Array(s, id, index, epoch) = iterator.split('|')
    require(s == stream && id == shardId, s"iterator $iterator used for $stream/$shardId")
    if (epoch.toInt < iteratorEpoch) throw new KinesisApiException.ExpiredIterator(s"$iterator expired", null)
    if (throttleNextGetRecords > 0) {
      throttleNextGetRecords -= 1
      throw new KinesisApiException.Throttled("Rate exceeded for shard", null)
    }
    val shard = streams(stream)(shardId)
    val from = index.toInt
    val batch = shard.records.slice(from, from + limit).toVector
    val next = from + batch.size
    val atEnd = next >= shard.records.size
    val nextIterator = if (atEnd && shard.info.isClosed) None else Some(s"$stream|$shardId|$next|$epoch")
    RecordBatch(batch, nextIterator, if (atEnd || reportNoLag) 0L else 1000L)
  }

  override def putRecords(stream: String, records: Seq[PutRecord]): Seq[PutResult] =
    throw new UnsupportedOperationException("not used by these tests")

  override def close(): Unit = ()

  private def notFound(what: String) = new KinesisApiException.ResourceNotFound(s"$what not found", null)
}
