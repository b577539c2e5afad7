// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest
import java.util.concurrent.ConcurrentHashMap

import io.github.sparkkinesis.client.{KinesisApi, ShardInfo}
import io.github.sparkkinesis.util.Clock

/**
 * Which open shard of a stream takes a record: Kinesis puts a record in the shard whose hash key range holds
 * the record's explicit hash key, or else the MD5 of its partition key read as a 128-bit number. Immutable.
 */
private[sparkkinesis] final class ShardMap(open: IndexedSeq[ShardInfo]) {
  private val sorted = open.sortBy(_.hashKeyRange._1)
  private val starts = sorted.map(_.hashKeyRange._1)

  /** The shard whose range holds `hashKey`; the last one below it if ranges have a gap (mid-reshard). */
  def shardOf(hashKey: BigInt): String = {
    val i = java.util.Collections.binarySearch(java.util.Arrays.asList(starts: _*), hashKey)
    val at = if (i >= 0) i else math.max(0, -i - 2)
    sorted(at).shardId
  }
}

private[sparkkinesis] object ShardMap {

  /** The hash key Kinesis places a record by. */
  def hashKeyOf(partitionKey: String, explicitHashKey: Option[String]): BigInt =
    explicitHashKey.map(BigInt(_)).getOrElse {
      BigInt(1, MessageDigest.getInstance("MD5").digest(partitionKey.getBytes(UTF_8)))
    }

  /** The stream's open shards, as Kinesis lists them now. */
  def load(api: KinesisApi, stream: String): ShardMap = {
    val open = api.listShards(stream, pageSize = 1000).filterNot(_.isClosed)
    if (open.isEmpty) throw new IllegalStateException(s"Stream '$stream' lists no open shard")
    new ShardMap(open.toIndexedSeq)
  }

  /** How long an executor uses a stream's map before it lists the shards again. */
  val MaxAgeMs = 30000L

  private final case class Loaded(map: ShardMap, atMs: Long)

  /** By client (one per endpoint, region and credentials: see SharedKinesisApis) and stream name. */
  private val loaded = new ConcurrentHashMap[(KinesisApi, String), Loaded]()

  /**
   * The stream's map, shared by the writing tasks of this executor and listed again after [[MaxAgeMs]], so
   * that many tasks do not each call ListShards (Kinesis allows 100 calls per second per stream).
   */
  def shared(api: KinesisApi, stream: String, clock: Clock): ShardMap = {
    val key = (api, stream)
    val now = clock.nowMillis()
    Option(loaded.get(key)).filter(l => now - l.atMs < MaxAgeMs).map(_.map).getOrElse {
      val fresh = load(api, stream)
      loaded.put(key, Loaded(fresh, now))
      fresh
    }
  }
}
