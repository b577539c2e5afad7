package io.github.sparkkinesis.source

import java.util.concurrent.{Callable, ExecutionException, ExecutorService}

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.{ApiFailures, KinesisApi, KinesisClientFactory, ShardInfo}
import io.github.sparkkinesis.config.{AwsConfig, InitialPosition, KinesisSourceConfig}
import io.github.sparkkinesis.fetch.{Probed, ShardTipProbe}
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}
import io.github.sparkkinesis.shards.{ShardDiscovery, ShardLineage}
import io.github.sparkkinesis.util.{Clock, DaemonThreads, SystemClock}
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{
  MicroBatchStream,
  Offset,
  ReadLimit,
  ReportsSourceMetrics,
  SupportsTriggerAvailableNow
}
import org.apache.spark.sql.SparkSession
import org.slf4j.LoggerFactory

/**
 * The driver's side of a streaming read. For each batch it lists the shards, decides how far each shard is
 * read (the batch's end offset, which Spark writes to its offset log before any task runs), and turns the
 * range between two offsets into one input partition per shard. Tasks then read exactly those ranges.
 *
 * Not thread-safe: Spark calls it from the query's thread. Makes no calls to Kinesis until Spark asks for
 * an offset.
 */
final class KinesisMicroBatchStream(
    config: KinesisSourceConfig,
    checkpointLocation: String,
    clock: Clock = SystemClock,
    newApi: AwsConfig => KinesisApi = KinesisClientFactory.create,
    hadoopConf: () => Configuration = () => SparkSession.active.sparkContext.hadoopConfiguration
) extends MicroBatchStream
    with SupportsTriggerAvailableNow
    with ReportsSourceMetrics {

  import KinesisMicroBatchStream._

  private val log = LoggerFactory.getLogger(getClass)

  private var apiInUse = Option.empty[KinesisApi]
  private lazy val api: KinesisApi = {
    val created = newApi(config.aws)
    apiInUse = Some(created)
    created
  }
  private lazy val discovery =
    new ShardDiscovery(api, config.streams, ListShardsPageSize, config.shardFetchIntervalMs, clock)
  private lazy val probe = new ShardTipProbe(api, config.maxRecordsPerFetch, MinProbeIntervalMs, clock)
  private var probePoolInUse = Option.empty[ExecutorService]
  private lazy val probePool: ExecutorService = {
    val pool = DaemonThreads.pool("kinesis-shard-probe", ProbeThreads)
    probePoolInUse = Some(pool)
    pool
  }

  /** Under Trigger.AvailableNow: the run's start, and the shards with nothing more before it. */
  @volatile private var availableNowCutoff = Option.empty[Long]
  private val caughtUp = java.util.concurrent.ConcurrentHashMap.newKeySet[ShardKey]()

  /** Shards listed at the last batch planning, and how many of them are closed. */
  @volatile private var lastShardCounts = (0, 0)

  override def initialOffset(): Offset =
    new InitialOffsetStore(checkpointLocation, hadoopConf()).getOrCreate(resolveInitialOffset())

  private def resolveInitialOffset(): KinesisSourceOffset = {
    val listed = listShards()
    val now = clock.nowMillis()
    val positions = listed.map { case (key, shard) =>
      key -> (config.initialPosition match {
        case InitialPosition.TrimHorizon => ShardPosition.TrimHorizon
        case InitialPosition.AtTimestamp(ms) => ShardPosition.AtTimestamp(ms)
        // `latest` is pinned to the query's start, so a restart before the first batch reads the same records.
        case InitialPosition.Latest if shard.isClosed => ShardPosition.ShardEnd
        case InitialPosition.Latest => ShardPosition.AtTimestamp(now)
      })
    }
    val offset = KinesisSourceOffset(positions)
    log.info(
      s"Initial offset of $this (initialPosition=${config.initialPosition}, shards=${positions.size}): ${offset.json}"
    )
    offset
  }

  override def latestOffset(): Offset =
    throw new UnsupportedOperationException(
      "The Kinesis source is asked for offsets with latestOffset(Offset, ReadLimit)"
    )

  override def getDefaultReadLimit: ReadLimit = ReadLimit.allAvailable()

  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val startedAt = clock.nowMillis()
    val from = start.asInstanceOf[KinesisSourceOffset]
    val listed = listShards()
    val tracked = ShardLineage.track(from.shards, listed)
    val readable = tracked.keys.filter(ShardLineage.readable(_, tracked, listed)).toSeq.map(k => k -> tracked(k))
    val advanced = availableNowCutoff match {
      case None => probeAll(readable, Long.MaxValue).map { case (key, probed) => key -> probed.position }
      case Some(cutoff) => probeUntilCaughtUp(readable.filterNot { case (key, _) => caughtUp.contains(key) }, cutoff)
    }
    probe.retain(tracked.keySet)
    val end = KinesisSourceOffset(tracked ++ advanced)
    lastShardCounts = (listed.size, listed.values.count(_.isClosed))
    log.debug(s"latestOffset of $this: probed ${readable.size} shards in ${clock.nowMillis() - startedAt} ms")
    end
  }

  /**
   * Trigger.AvailableNow: the instant the run started, records that arrived before it are read.
   * Spark ends the run at the first batch whose offset does not move, so here a probe that finds nothing
   * yet (paced, throttled, or an empty stretch) is repeated until some shard moves or every shard is
   * caught up with the instant.
   */
  override def prepareForTriggerAvailableNow(): Unit = {
    val cutoff = clock.nowMillis()
    availableNowCutoff = Some(cutoff)
    log.info(s"$this reads, in this run, what arrived before ${java.time.Instant.ofEpochMilli(cutoff)}")
  }

  private def probeUntilCaughtUp(shards: Seq[(ShardKey, ShardPosition)], cutoff: Long): Map[ShardKey, ShardPosition] = {
    var pending = shards
    var advanced = Map.empty[ShardKey, ShardPosition]
    while (pending.nonEmpty && advanced.isEmpty) {
      val probed = probeAll(pending, cutoff)
      probed.foreach { case (key, result) => if (result.caughtUp) caughtUp.add(key) }
      val before = pending.toMap
      advanced = probed.collect { case (key, result) if result.position != before(key) => key -> result.position }
      pending = pending.filterNot { case (key, _) => caughtUp.contains(key) }
      if (advanced.isEmpty && pending.nonEmpty) clock.sleep(MinProbeIntervalMs)
    }
    advanced
  }

  private def listShards(): Map[ShardKey, ShardInfo] =
    ApiFailures.userFacing("ListShards", config.streams.mkString(","), api)(discovery.shards())

  /** Probes shards in parallel, at most [[ProbeThreads]] at once. */
  private def probeAll(shards: Seq[(ShardKey, ShardPosition)], arrivedBefore: Long): Map[ShardKey, Probed] = {
    val futures = shards.map { case (key, from) =>
      val task: Callable[Probed] =
        () => ApiFailures.userFacing("GetRecords", key.stream, api)(probe.probe(key, from, arrivedBefore))
      key -> probePool.submit(task)
    }
    futures.map { case (key, future) =>
      try key -> future.get()
      catch { case e: ExecutionException => throw e.getCause }
    }.toMap
  }

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val from = start.asInstanceOf[KinesisSourceOffset].shards
    val to = end.asInstanceOf[KinesisSourceOffset].shards
    val ranges = for {
      (key, ShardPosition.After(endSeq)) <- to.toSeq
      startPosition = from.getOrElse(key, ShardPosition.TrimHorizon)
      if startPosition != ShardPosition.After(endSeq)
    } yield KinesisInputPartition(key, startPosition, endSeq, config.aws, config.maxRecordsPerFetch)
    ranges.sortBy(p => (p.shard.stream, p.shard.shardId)).toArray
  }

  override def createReaderFactory(): PartitionReaderFactory = KinesisPartitionReaderFactory

  /**
   * Shown in every query progress under `sources[].metrics`, with the Databricks source's names: the lag of
   * the planned data behind each shard's newest record (from GetRecords' MillisBehindLatest), the shard
   * counts, and how often probing was throttled.
   */
  override def metrics(latestConsumedOffset: java.util.Optional[Offset]): java.util.Map[String, String] = {
    val behind = if (apiInUse.isEmpty) Map.empty[ShardKey, Long] else probe.millisBehindLatest
    val (total, closed) = lastShardCounts
    val lag =
      if (behind.isEmpty) Map.empty[String, String]
      else {
        val values = behind.values
        Map(
          "avgMsBehindLatest" -> (values.sum.toDouble / values.size).toString,
          "maxMsBehindLatest" -> values.max.toString,
          "minMsBehindLatest" -> values.min.toString)
      }
    val throttled = if (apiInUse.isEmpty) 0L else probe.throttledCalls
    (lag ++ Map(
      "numTotalShards" -> total.toString,
      "numClosedShards" -> closed.toString,
      "numThrottledFetches" -> throttled.toString)).asJava
  }

  override def deserializeOffset(json: String): Offset = KinesisSourceOffset.fromJson(json)

  override def commit(end: Offset): Unit = ()

  override def stop(): Unit = {
    probePoolInUse.foreach(_.shutdownNow())
    apiInUse.foreach(_.close())
  }

  override def toString: String = config.description
}

object KinesisMicroBatchStream {
  val ListShardsPageSize = 100
  val ProbeThreads = 8

  /** Kinesis allows five GetRecords calls per second and shard. */
  val MinProbeIntervalMs = 200L
}
