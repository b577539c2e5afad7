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
 * `maxShardsPerDescribe`), at most once per `intervalMs` (the option `shardFetchInterval`), and no more often
 * than keeps a stream's listings to [[ShardDiscovery.ListCallsPerSecond]] ListShards calls a second on
 * average: a stream of 10,000 shards takes 100 calls of 100 shards to list, which every second would be the
 * whole of the 100 calls a second Kinesis long allowed a stream (1,000 in today's documentation), shared
 * with every other reader of the stream; it is listed every 5 s instead, and the log says so once. The first
 * listing throws its failure (the source retries one that may pass: `source.QueryStreams.listShards`); a later
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
  private var pacedMs = intervalMs // the interval, stretched for the calls the last listing took

  def shards(): Map[ShardKey, ShardInfo] = {
    val now = clock.nowMillis()
    cached match {
      case Some(known) if now - refreshedAt < pacedMs => known
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

  /** How often the shards are listed now: `shardFetchInterval`, or longer for the calls a listing takes. */
  def refreshIntervalMs: Long = pacedMs

  /** Keeps a listing; one equal to the previous keeps the previous, so callers can tell nothing changed by `eq`. */
  private def remember(listed: Map[ShardKey, ShardInfo]): Map[ShardKey, ShardInfo] = {
    pace(listed)
    if (!cached.contains(listed)) cached = Some(listed)
    streams.foreach(health.succeeded(_))
    cached.get
  }

  private def list(): Map[ShardKey, ShardInfo] =
    streams.flatMap(s => api.listShards(s, pageSize).map(i => ShardKey(s, i.shardId) -> i)).toMap

  /** Stretches the interval so that the stream with the most shards is listed within the calls it may take. */
  private def pace(listed: Map[ShardKey, ShardInfo]): Unit = {
    val largest = listed.keysIterator.toSeq.groupBy(_.stream).valuesIterator.map(_.size).foldLeft(0)(math.max)
    val paced = ShardDiscovery.intervalFor(largest, pageSize, intervalMs)
    if (pacedMs == intervalMs && paced > intervalMs)
      log.info(
        s"Listing the $largest shards of a stream takes ${ShardDiscovery.calls(largest, pageSize)} ListShards calls " +
          s"of $pageSize shards (maxShardsPerDescribe): the shards are listed every $paced ms, not every " +
          s"$intervalMs ms (shardFetchInterval), to keep to ${ShardDiscovery.ListCallsPerSecond} calls a second")
    pacedMs = paced
  }
}

private[sparkkinesis] object ShardDiscovery {

  /**
   * The ListShards calls a second a query's listing makes of a stream, on average: a fifth of the 100 a
   * second Kinesis allowed a stream for years, so that a listing never throttles the stream's other readers.
   */
  val ListCallsPerSecond = 20

  /** The ListShards calls that list `shards` shards, `pageSize` a call. */
  def calls(shards: Int, pageSize: Int): Int = math.max(1, (shards + pageSize - 1) / pageSize)

  /**
   * How often a stream of `shards` shards may be listed: every `intervalMs`, or less often if its calls need
   * it. A listing of one call keeps `intervalMs` as given, however short.
   */
  def intervalFor(shards: Int, pageSize: Int, intervalMs: Long): Long = {
    val listing = calls(shards, pageSize)
    if (listing <= 1) intervalMs else math.max(intervalMs, listing * 1000L / ListCallsPerSecond)
  }
}
