// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.util.concurrent.atomic.LongAdder
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client._

/**
 * Records the Kinesis action of every call the connector's clients make in the test JVM, by the side of the
 * connector ([[ClientUse]]) the client is for, and counts them by the stream and shard each call names. The
 * emulator enforces no IAM policy, so this record is how the tests know which actions each side needs; the
 * counts tell a test how a query read its stream (subscribed to a shard, or polled it). The tests' own calls
 * (creating streams, writing test data) go through clients of their own and are left out.
 */
object RecordedKinesisCalls {

  /**
   * A kind of call: its side, its action, and the stream and shard it names. A call on a consumer names the
   * stream in the consumer's ARN (`arn:...:stream/STREAM/consumer/NAME:...`).
   */
  final case class Call(side: String, action: String, stream: Option[String], shardId: Option[String])

  private val counts = new ConcurrentHashMap[Call, LongAdder]()

  /** Records the calls of every client the connector makes from now on in this JVM. */
  def install(): Unit = KinesisClientFactory.wrapNewClients((use, api) => new Recording(use, api))

  /** How many calls of each kind were made so far in this JVM: a mark for [[bySide]] to count from. */
  def snapshot(): Map[Call, Long] = counts.asScala.map { case (call, n) => call -> n.sum }.toMap

  /**
   * The actions called since `since` (a [[snapshot]]; by default, since the JVM started), by side (a
   * ClientUse's name).
   */
  def bySide(since: Map[Call, Long] = Map.empty): Map[String, Set[String]] =
    counts.asScala
      .collect { case (call, n) if n.sum > since.getOrElse(call, 0L) => call }
      .toSet
      .groupBy((call: Call) => call.side)
      .map { case (side, c) => side -> c.map(_.action) }

  /** How many calls of `action` each shard of `stream` had so far in this JVM, from any side. */
  def byShard(action: String, stream: String): Map[String, Long] =
    counts.asScala.toSeq
      .collect { case (Call(_, `action`, Some(`stream`), Some(shard)), n) => shard -> n.sum }
      .groupBy(_._1)
      .map { case (shard, bySide) => shard -> bySide.map(_._2).sum }

  /** How many calls of `action` named `stream` (or a consumer of it) so far in this JVM, from any side. */
  def count(action: String, stream: String): Long =
    counts.asScala.collect { case (Call(_, `action`, Some(`stream`), _), n) => n.sum }.sum

  /** The stream a stream's or a consumer's ARN names. */
  private def streamOf(arn: String): Option[String] =
    arn.split(":stream/", 2) match {
      case Array(_, rest) => Some(rest.takeWhile(_ != '/'))
      case _ => None
    }

  /** Each method of the connector's client is one Kinesis action, recorded before it is called. */
  private final class Recording(use: ClientUse, real: KinesisApi) extends DelegatingKinesisApi(real) {
    private def record(action: String, stream: Option[String], shardId: Option[String] = None): Unit =
      counts.computeIfAbsent(Call(use.name, action, stream, shardId), _ => new LongAdder).increment()

    override def describeStream(stream: String): StreamSummary = {
      record("DescribeStreamSummary", Some(stream))
      super.describeStream(stream)
    }
    override def listShards(stream: String, pageSize: Int): Seq[ShardInfo] = {
      record("ListShards", Some(stream))
      super.listShards(stream, pageSize)
    }
    override def getShardIterator(stream: String, shardId: String, start: IteratorStart): String = {
      record("GetShardIterator", Some(stream), Some(shardId))
      super.getShardIterator(stream, shardId, start)
    }
    override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch = {
      record("GetRecords", Some(stream), Some(shardId))
      super.getRecords(stream, shardId, iterator, limit)
    }
    override def putRecords(stream: String, records: Seq[PutRecord]): Seq[PutResult] = {
      record("PutRecords", Some(stream))
      super.putRecords(stream, records)
    }
    override def describeConsumer(streamArn: String, consumerName: String): Option[ConsumerInfo] = {
      record("DescribeStreamConsumer", streamOf(streamArn))
      super.describeConsumer(streamArn, consumerName)
    }
    override def registerConsumer(streamArn: String, consumerName: String): ConsumerInfo = {
      record("RegisterStreamConsumer", streamOf(streamArn))
      super.registerConsumer(streamArn, consumerName)
    }
    override def listConsumers(streamArn: String): Seq[ConsumerInfo] = {
      record("ListStreamConsumers", streamOf(streamArn))
      super.listConsumers(streamArn)
    }
    override def deregisterConsumer(streamArn: String, consumerName: String): Unit = {
      record("DeregisterStreamConsumer", streamOf(streamArn))
      super.deregisterConsumer(streamArn, consumerName)
    }
    override def subscribeToShard(consumerArn: String, shardId: String, start: IteratorStart): ShardSubscription = {
      record("SubscribeToShard", streamOf(consumerArn), Some(shardId))
      super.subscribeToShard(consumerArn, shardId, start)
    }
    override def counting(errors: RateLimitErrors): KinesisApi = new Recording(use, real.counting(errors))
    override def close(): Unit = real.close()
  }
}
