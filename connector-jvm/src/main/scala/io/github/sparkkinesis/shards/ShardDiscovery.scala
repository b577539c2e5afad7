// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.shards

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{ApiFailures, KinesisApi, KinesisApiException, ShardInfo}
import io.github.sparkkinesis.health.KinesisHealth
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Lists the shards of the query's streams, in ListShards pages of `pageSize` (the option
 * `maxShardsPerDescribe`), at most once per `intervalMs` (the option `shardFetchInterval`). The first listing
 * throws its failure (the source retries one that may pass: `source.KinesisMicroBatchStream`); a later
 * refresh that fails keeps the previous list until the next interval (reshards are then seen late, but the
 * query goes on), and a failure that may pass is reported to `health`, which logs and bounds outages.
 * Driver side; not thread-safe: the stream makes one call at a time.
 */
private[sparkkinesis] final class ShardDiscovery(
    api: KinesisApi,
    streams: Seq[String],
    pageSize: Int,
    intervalMs: Long,
    clock: Clock,
    health: KinesisHealth) {

  private val log = LoggerFactory.getLogger(getClass)

  private var cached: Option[Map[ShardKey, ShardInfo]] = None
  private var refreshedAt = Long.MinValue

  def shards(): Map[ShardKey, ShardInfo] = {
    val now = clock.nowMillis()
    cached match {
      case Some(known) if now - refreshedAt < intervalMs => known
      case Some(known) =>
        refreshedAt = now
        try remember(list())
        catch {
          case e: KinesisApiException if ApiFailures.outage(e) =>
            streams.foreach(health.failed(_, e))
            known
          case NonFatal(e) =>
            log.warn(s"Listing the shards of ${streams.mkString(",")} failed; using the previous list: $e")
            known
        }
      case None =>
        val listed = list()
        refreshedAt = now
        remember(listed)
    }
  }

  /** Keeps a listing; one equal to the previous keeps the previous, so callers can tell nothing changed by `eq`. */
  private def remember(listed: Map[ShardKey, ShardInfo]): Map[ShardKey, ShardInfo] = {
    if (!cached.contains(listed)) cached = Some(listed)
    streams.foreach(health.succeeded(_))
    cached.get
  }

  private def list(): Map[ShardKey, ShardInfo] =
    streams.flatMap(s => api.listShards(s, pageSize).map(i => ShardKey(s, i.shardId) -> i)).toMap
}
