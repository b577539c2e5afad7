// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/**
 * The Kinesis calls the connector makes, in the connector's own types, so that the rest of the code never
 * sees an AWS SDK class and unit tests can use a fake. Implementations are thread-safe.
 *
 * Calls name a stream by its name, and implementations by its ARN instead when they were given one (the
 * option `streamARN`). Every failure of a call is thrown as a [[KinesisApiException]].
 */
private[sparkkinesis] trait KinesisApi extends AutoCloseable {

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

  /** The consumer of that ARN, or None if there is none. */
  def describeConsumerByArn(consumerArn: String): Option[ConsumerInfo]

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

  /**
   * This client as one caller sees it: AWS' throttling answers to the calls made through the result are
   * counted in `errors`, attempt by attempt, those the AWS SDK retried by itself included. The result shares
   * this client's connections (closing either closes both). A client that does not call AWS through the SDK
   * has no attempts of its own to count, and may be its own view.
   */
  def counting(errors: RateLimitErrors): KinesisApi = this

  override def close(): Unit
}
