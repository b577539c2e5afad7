// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import io.github.sparkkinesis.client._

/**
 * A fake's [[KinesisApi.counting]]: each call of `real` that fails as throttled counts one throttling answer in
 * `errors`, as one attempt the SDK did not retry would.
 */
final class CountingThrottles(real: KinesisApi, errors: RateLimitErrors) extends DelegatingKinesisApi(real) {
  private def counted[T](body: => T): T =
    try body
    catch {
      case e: KinesisApiException.Throttled =>
        errors.add(1)
        throw e
    }

  override def describeStream(stream: String): StreamSummary = counted(super.describeStream(stream))
  override def listShards(stream: String, pageSize: Int): Seq[ShardInfo] = counted(super.listShards(stream, pageSize))
  override def getShardIterator(stream: String, shardId: String, start: IteratorStart): String =
    counted(super.getShardIterator(stream, shardId, start))
  override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch =
    counted(super.getRecords(stream, shardId, iterator, limit))
  override def putRecords(stream: String, records: Seq[PutRecord]): Seq[PutResult] =
    counted(super.putRecords(stream, records))
  override def describeConsumer(streamArn: String, consumerName: String): Option[ConsumerInfo] =
    counted(super.describeConsumer(streamArn, consumerName))
  override def registerConsumer(streamArn: String, consumerName: String): ConsumerInfo =
    counted(super.registerConsumer(streamArn, consumerName))
  override def listConsumers(streamArn: String): Seq[ConsumerInfo] = counted(super.listConsumers(streamArn))
  override def deregisterConsumer(streamArn: String, consumerName: String): Unit =
    counted(super.deregisterConsumer(streamArn, consumerName))
  override def subscribeToShard(consumerArn: String, shardId: String, start: IteratorStart): ShardSubscription =
    counted(super.subscribeToShard(consumerArn, shardId, start))
}
