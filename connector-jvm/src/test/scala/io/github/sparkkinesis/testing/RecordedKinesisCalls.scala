// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client._

/**
 * Records the Kinesis action of every call the connector's clients make in the test JVM, by the side of the
 * connector ([[ClientUse]]) the client is for. The emulator enforces no IAM policy, so this record is how
 * the tests know which actions each side needs. The tests' own calls (creating streams, writing test data)
 * go through clients of their own and are left out.
 */
object RecordedKinesisCalls {
  private val calls = ConcurrentHashMap.newKeySet[(String, String)]()

  /** Records the calls of every client the connector makes from now on in this JVM. */
  def install(): Unit = KinesisClientFactory.wrapNewClients((use, api) => new Recording(use, api))

  /** The actions called so far in this JVM, by side (a ClientUse's name). */
  def bySide: Map[String, Set[String]] =
    calls.asScala.toSet.groupBy((call: (String, String)) => call._1).map { case (side, c) => side -> c.map(_._2) }

  /** Each method of the connector's client is one Kinesis action, recorded before it is called. */
  private final class Recording(use: ClientUse, real: KinesisApi) extends DelegatingKinesisApi(real) {
    private def record(action: String): Unit = calls.add((use.name, action))

    override def describeStream(stream: String): StreamSummary = {
      record("DescribeStreamSummary")
      super.describeStream(stream)
    }
    override def listShards(stream: String, pageSize: Int): Seq[ShardInfo] = {
      record("ListShards")
      super.listShards(stream, pageSize)
    }
    override def getShardIterator(stream: String, shardId: String, start: IteratorStart): String = {
      record("GetShardIterator")
      super.getShardIterator(stream, shardId, start)
    }
    override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch = {
      record("GetRecords")
      super.getRecords(stream, shardId, iterator, limit)
    }
    override def putRecords(stream: String, records: Seq[PutRecord]): Seq[PutResult] = {
      record("PutRecords")
      super.putRecords(stream, records)
    }
    override def describeConsumer(streamArn: String, consumerName: String): Option[ConsumerInfo] = {
      record("DescribeStreamConsumer")
      super.describeConsumer(streamArn, consumerName)
    }
    override def registerConsumer(streamArn: String, consumerName: String): ConsumerInfo = {
      record("RegisterStreamConsumer")
      super.registerConsumer(streamArn, consumerName)
    }
    override def listConsumers(streamArn: String): Seq[ConsumerInfo] = {
      record("ListStreamConsumers")
      super.listConsumers(streamArn)
    }
    override def deregisterConsumer(streamArn: String, consumerName: String): Unit = {
      record("DeregisterStreamConsumer")
      super.deregisterConsumer(streamArn, consumerName)
    }
    override def subscribeToShard(consumerArn: String, shardId: String, start: IteratorStart): ShardSubscription = {
      record("SubscribeToShard")
      super.subscribeToShard(consumerArn, shardId, start)
    }
    override def close(): Unit = real.close()
  }
}
