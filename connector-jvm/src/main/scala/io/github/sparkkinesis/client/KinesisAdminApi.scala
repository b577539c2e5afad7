package io.github.sparkkinesis.client

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
