// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import io.github.sparkkinesis.client._

/** A [[KinesisApi]] that passes every call to `real`; tests override the calls they inject faults into. */
class DelegatingKinesisApi(real: KinesisApi) extends KinesisApi {
  override def target: String = real.target
  override def describeStream(stream: String): StreamSummary = real.describeStream(stream)
  override def listShards(stream: String, pageSize: Int): Seq[ShardInfo] = real.listShards(stream, pageSize)
  override def getShardIterator(stream: String, shardId: String, start: IteratorStart): String =
    real.getShardIterator(stream, shardId, start)
  override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch =
    real.getRecords(stream, shardId, iterator, limit)
  override def putRecords(stream: String, records: Seq[PutRecord]): Seq[PutResult] = real.putRecords(stream, records)
  override def describeConsumer(streamArn: String, consumerName: String): Option[ConsumerInfo] =
    real.describeConsumer(streamArn, consumerName)
  override def describeConsumerByArn(consumerArn: String): Option[ConsumerInfo] =
    real.describeConsumerByArn(consumerArn)
  override def registerConsumer(streamArn: String, consumerName: String): ConsumerInfo =
    real.registerConsumer(streamArn, consumerName)
  override def listConsumers(streamArn: String): Seq[ConsumerInfo] = real.listConsumers(streamArn)
  override def deregisterConsumer(streamArn: String, consumerName: String): Unit =
    real.deregisterConsumer(streamArn, consumerName)
  override def subscribeToShard(consumerArn: String, shardId: String, start: IteratorStart): ShardSubscription =
    real.subscribeToShard(consumerArn, shardId, start)
  override def close(): Unit = ()
}
