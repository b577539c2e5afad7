package io.github.sparkkinesis.shards

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{KinesisApi, KinesisApiException, ShardInfo}
import io.github.sparkkinesis.fetch.Backoff
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Lists the shards of the query's streams, in ListShards pages of `pageSize` (the option
 * `maxShardsPerDescribe`), at most once per `intervalMs` (the option `shardFetchInterval`). A failure is never
 * fatal at once: the first listing is tried again with backoff, [[ShardDiscovery.MaxAttempts]] times in all,
 * unless the stream does not exist or access is denied; a later refresh that fails keeps the previous list
 * and logs the failure (reshards are then seen late, but the query goes on). Driver side; not thread-safe:
 * the stream makes one call at a time.
 */
final class ShardDiscovery(api: KinesisApi, streams: Seq[String], pageSize: Int, intervalMs: Long, clock: Clock) {
  import ShardDiscovery._

  private val log = LoggerFactory.getLogger(getClass)

  private var cached: Option[Map[ShardKey, ShardInfo]] = None
  private var refreshedAt = Long.MinValue

  def shards(): Map[ShardKey, ShardInfo] = {
    val now = clock.nowMillis()
    cached match {
      case Some(known) if now - refreshedAt < intervalMs => known
      case Some(known) =>
        try remember(list(), now)
        catch {
          case NonFatal(e) =>
            log.warn(s"Listing the shards of ${streams.mkString(",")} failed; using the previous list: $e")
            known
        }
      case None => remember(firstList(), now)
    }
  }

  private def remember(listed: Map[ShardKey, ShardInfo], now: Long): Map[ShardKey, ShardInfo] = {
    cached = Some(listed)
    refreshedAt = now
    listed
  }

  private def list(): Map[ShardKey, ShardInfo] =
    streams.flatMap(s => api.listShards(s, pageSize).map(i => ShardKey(s, i.shardId) -> i)).toMap

  private def firstList(): Map[ShardKey, ShardInfo] = {
    val backoff = new Backoff(RetryMinMs, RetryMaxMs, clock)
    var attempt = 1
    var listed = Option.empty[Map[ShardKey, ShardInfo]]
    while (listed.isEmpty) {
      try listed = Some(list())
      catch {
        case e @ (_: KinesisApiException.ResourceNotFound | _: KinesisApiException.AccessDenied) => throw e
        case e: KinesisApiException if attempt < MaxAttempts =>
          log.warn(s"Listing the shards of ${streams.mkString(",")} failed (attempt $attempt of $MaxAttempts): $e")
          backoff.sleep()
          attempt += 1
      }
    }
    listed.get
  }
}

object ShardDiscovery {

  /** Attempts at the first listing before the query fails. */
  val MaxAttempts = 5
  private val RetryMinMs = 500L
  private val RetryMaxMs = 8000L
}
