package io.github.sparkkinesis.shards

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{KinesisApi, ShardInfo}
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Lists the shards of the query's streams, at most once per `intervalMs` (the option `shardFetchInterval`).
 * When a refresh fails after a successful one, the previous list is kept and the failure logged: reshards
 * are then seen late, but the query goes on. Driver side; not thread-safe: the stream makes one call at a
 * time.
 */
final class ShardDiscovery(api: KinesisApi, streams: Seq[String], pageSize: Int, intervalMs: Long, clock: Clock) {
  private val log = LoggerFactory.getLogger(getClass)

  private var cached: Option[Map[ShardKey, ShardInfo]] = None
  private var refreshedAt = Long.MinValue

  def shards(): Map[ShardKey, ShardInfo] = {
    val now = clock.nowMillis()
    cached match {
      case Some(known) if now - refreshedAt < intervalMs => known
      case previous =>
        try {
          val listed = streams.flatMap(s => api.listShards(s, pageSize).map(i => ShardKey(s, i.shardId) -> i)).toMap
          cached = Some(listed)
          refreshedAt = now
          listed
        } catch {
          case NonFatal(e) if previous.isDefined =>
            log.warn(s"Listing the shards of ${streams.mkString(",")} failed; using the previous list: $e")
            previous.get
        }
    }
  }
}
