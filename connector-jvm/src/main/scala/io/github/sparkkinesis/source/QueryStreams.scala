// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.{
  ApiFailures,
  ClientUse,
  KinesisApi,
  KinesisClientFactory,
  RateLimitErrors,
  ShardInfo
}
import io.github.sparkkinesis.config.{InitialPosition, KinesisOptions, KinesisSourceConfig}
import io.github.sparkkinesis.consumers.StreamConsumers
import io.github.sparkkinesis.errors.{KinesisErrors, KinesisException}
import io.github.sparkkinesis.health.KinesisHealth
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition, StreamIdentity}
import io.github.sparkkinesis.shards.{
  RecordLimits,
  SequenceNumberStarts,
  ShardDiscovery,
  ShardLineage,
  StreamIdentities
}
import io.github.sparkkinesis.util.{Backoff, Clock, DaemonThreads, SystemClock}
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.slf4j.LoggerFactory

/**
 * What a streaming read knows of its streams, whichever way its batches are read (micro-batches over
 * prefetched blocks, or real-time batches): the query's Kinesis client and whether Kinesis answers it, the
 * shards as listed, which stream of each name the offsets are of, the lineage rules that decide which shards
 * a batch may read, the enhanced fan-out consumers, the initial offset, and the metrics that mean the same in
 * every mode. Makes no call to Kinesis until asked. Driver side; called from the query's thread (the
 * consumers from the prefetcher's too). Whichever mode reads them stops them, with its own stop.
 *
 * @param queryId the streaming query's id, which names its consumers when `consumerName` is not set
 * @param newGauges the gauges of Spark's metric system that show the query's metrics (see [[published]])
 */
private[sparkkinesis] final class QueryStreams(
    config: KinesisSourceConfig,
    checkpointLocation: String,
    clock: Clock,
    newApi: () => KinesisApi,
    hadoopConf: () => Configuration,
    queryId: () => Option[String],
    newGauges: Seq[String] => QueryGauges = QueryGauges.none) {
  import QueryStreams._

  private val log = LoggerFactory.getLogger(getClass)

  private var apiInUse = Option.empty[KinesisApi]

  /** AWS' throttling answers to the driver's own calls (listings, descriptions, consumers, cuts). */
  private val driverRateLimitErrors = new RateLimitErrors

  /** The query's Kinesis client, made on first use; AWS' throttling answers to it are counted. */
  lazy val api: KinesisApi = {
    val created = newApi()
    apiInUse = Some(created)
    created.counting(driverRateLimitErrors)
  }

  /** Whether Kinesis answers the source's calls; bounds outages by the option outageTimeout. */
  lazy val health = new KinesisHealth(api.target, config.description, "read", config.outageTimeoutMs, clock)
  private lazy val discovery =
    new ShardDiscovery(api, config.streams, config.maxShardsPerDescribe, config.shardFetchIntervalMs, clock, health)
  private lazy val identities = new StreamIdentities(api, config.streams)

  /** Under consumerMode efo, the query's consumers; named when a batch first needs them. */
  lazy val consumers: Option[StreamConsumers] =
    if (!config.consumer.isEfo) None
    else {
      val chosen = config.consumer.consumersFor(
        config.streams,
        queryId().getOrElse(throw KinesisErrors.missingOption(KinesisOptions.ConsumerName.key, "my-query"))
      )
      val beforehand = if (config.consumer.registered.isDefined) " registered beforehand" else ""
      log.info(
        s"${config.description} reads through the enhanced fan-out consumers$beforehand " +
          chosen.map { case (s, c) => s"$s: ${c.id}" }.mkString(", "))
      val created = new StreamConsumers(api, chosen, config.consumer.refreshIntervalMs, clock)
      consumersInUse = true
      Some(created)
    }

  /** Whether the consumers were named, so that stopping deregisters them if asked to. */
  @volatile private var consumersInUse = false

  /** Under consumerMode efo, the ARN of each stream's consumer, registered and ACTIVE; else none. */
  def consumerArns(): Map[String, String] = consumers.fold(Map.empty[String, String])(_.arns())

  /** A task found the consumer of `stream` gone: the next [[consumerArns]] registers it again. */
  def consumerLost(stream: String): Unit = consumers.foreach(_.lost(stream))

  /** By stream, the largest record it takes now, as Kinesis says (see `shards.RecordLimits`). */
  def recordLimits(): Map[String, Long] = onDriver("DescribeStreamSummary")(RecordLimits.of(api, config.streams))

  /** Shards listed at the last batch planning, and how many of them are closed. */
  @volatile private var lastShardCounts = (0, 0)

  /** The query's first offset, kept in the checkpoint so that a restart before its first batch starts alike. */
  def initialOffset(): KinesisSourceOffset =
    new InitialOffsetStore(checkpointLocation, hadoopConf()).getOrCreate(resolveInitialOffset())

  private def resolveInitialOffset(): KinesisSourceOffset = {
    val listed = listShards()
    val now = clock.nowMillis()
    val positions = config.initialPosition match {
      case InitialPosition.AfterOffset(offset) => ShardLineage.startingAfter(offset.shards, listed)
      case InitialPosition.FromSequenceNumbers(named) =>
        onDriver("GetShardIterator")(
          SequenceNumberStarts.check(KinesisOptions.InitialPositionOption.key, named, listed, api))
        ShardLineage.startingAfter(named, listed)
      case start =>
        listed.map { case (key, shard) =>
          key -> (start match {
            case InitialPosition.AtTimestamp(ms) => ShardPosition.AtTimestamp(ms)
            // `latest` is pinned to the query's start, so a restart before the first batch reads the same records.
            case InitialPosition.Latest if shard.isClosed => ShardPosition.ShardEnd
            case InitialPosition.Latest => ShardPosition.AtTimestamp(now)
            case _ => ShardPosition.TrimHorizon
          })
        }
    }
    // Positions of another query's offset belong to the streams it read: a stream recreated since is refused.
    val recorded = config.initialPosition match {
      case InitialPosition.AfterOffset(from) =>
        identities.checkShards(from.shards, listed)
        onDriver("DescribeStreamSummary")(identities.check(from.identities))
      case _ => onDriver("DescribeStreamSummary")(identities.current())
    }
    val offset = KinesisSourceOffset(positions, recorded)
    log.info(
      s"Initial offset of ${config.description} (initialPosition=${config.initialPosition}, " +
        s"shards=${positions.size}): ${offset.json}")
    offset
  }

  /**
   * Checks that `offset`, the start of the next batch, fits the streams as they are now (`listed`). Returns
   * the stream identities to record, the shards not read to their end (with the children of those that
   * are), and of them those readable now (their parents read to their ends).
   */
  def positionsFrom(offset: KinesisSourceOffset, listed: Map[ShardKey, ShardInfo]): Positions = {
    val recorded = checkStreams(offset)
    health.check()
    identities.checkShards(offset.shards, listed)
    val tracked = ShardLineage.track(withoutExpiredShards(offset.shards, listed), listed)
    val readable = tracked.filter { case (key, _) => ShardLineage.readable(key, tracked, listed) }
    lastShardCounts = (listed.size, listed.values.count(_.isClosed))
    Positions(recorded, tracked, readable)
  }

  /** A stream seems gone: Kinesis is asked again whether the streams the offsets recorded are the same. */
  def recheckIdentities(recorded: Map[String, StreamIdentity]): Unit =
    onDriver("DescribeStreamSummary")(identities.recheck(recorded))

  /**
   * Fails if `offset` has positions in streams this query does not read, or a stream was recreated since;
   * returns the identities to record from here on.
   */
  private def checkStreams(offset: KinesisSourceOffset): Map[String, StreamIdentity] = {
    val recorded = offset.shards.keySet.map(_.stream)
    if (!recorded.subsetOf(config.streams.toSet))
      throw KinesisErrors.checkpointOtherStreams(recorded.toSeq.sorted, config.streams)
    onDriver("DescribeStreamSummary")(identities.check(offset.identities))
  }

  /**
   * Positions with the shards Kinesis no longer lists, though the query had not read them to their end,
   * marked finished: such a shard was closed by a reshard and its retention period ended first, so its
   * remaining records are gone. The query fails then, unless failOnDataLoss is false.
   */
  private def withoutExpiredShards(
      positions: Map[ShardKey, ShardPosition],
      listed: Map[ShardKey, ShardInfo]): Map[ShardKey, ShardPosition] = {
    val expired = unlisted(positions, listed)
    expired.foreach { case (key, position) =>
      val lost = remainderOf(position)
      val reason = "the shard was closed and its retention period ended before the query read it to its end"
      if (config.reading.failOnDataLoss) throw KinesisErrors.dataLoss(key.stream, key.shardId, lost, reason)
      log.warn(s"Skipping the $lost of $key: $reason (failOnDataLoss is false)")
    }
    positions ++ expired.keys.map(_ -> ShardPosition.ShardEnd)
  }

  /**
   * The shards of `positions` that Kinesis does not list and that are not read to their end. A shard the
   * stream never had fails the query whatever failOnDataLoss says: going on would read the stream's own
   * shards from their start again, records a committed batch already delivered among them.
   */
  private def unlisted(
      positions: Map[ShardKey, ShardPosition],
      listed: Map[ShardKey, ShardInfo]): Map[ShardKey, ShardPosition] = {
    val gone = positions.filter { case (key, p) => p != ShardPosition.ShardEnd && !listed.contains(key) }
    gone.keys.toSeq.sortBy(_.shardId).find(!ShardLineage.couldHaveExpired(_, listed)).foreach { key =>
      val ofStream = listed.keys.filter(_.stream == key.stream).map(_.shardId).toSeq.sorted
      val shown =
        if (ofStream.isEmpty) "no shard"
        else if (ofStream.size <= 5) ofStream.mkString(", ")
        else s"${ofStream.take(5).mkString(", ")} and ${ofStream.size - 5} more"
      throw KinesisErrors.checkpointForeign(key.stream, key.shardId, shown)
    }
    gone
  }

  private def remainderOf(position: ShardPosition): String = position match {
    case ShardPosition.After(seq, _) => s"records after sequence number $seq"
    case ShardPosition.At(seq) => s"records from sequence number $seq on"
    case ShardPosition.AtTimestamp(ms) => s"records from ${java.time.Instant.ofEpochMilli(ms)} on"
    case _ => "records"
  }

  /**
   * The streams' shards. While Kinesis cannot be reached (or fails every call) at the first listing, tries
   * again with backoff until the option outageTimeout has passed, as prefetching does later.
   */
  def listShards(): Map[ShardKey, ShardInfo] = {
    lazy val backoff = new Backoff(ListRetryMinMs, ListRetryMaxMs, clock)
    var listed = Option.empty[Map[ShardKey, ShardInfo]]
    while (listed.isEmpty) {
      try listed = Some(onDriver("ListShards")(discovery.shards()))
      catch {
        case e: KinesisException if ApiFailures.transient(e) =>
          config.streams.foreach(health.failed(_, e))
          health.check()
          backoff.sleep()
      }
    }
    listed.get
  }

  /** A Kinesis call of the query's thread, with failures a user can act on made into clear errors. */
  def onDriver[T](action: String)(body: => T): T =
    ApiFailures.userFacing(action, config.streams.mkString(","), api) {
      DaemonThreads.shieldedFromInterrupts(body)
    }

  /**
   * Spark hands each batch's start back as JSON, and asks for it again before every offset it asks for
   * (about every 10 ms while nothing arrives): the same JSON gets the offset it got before, so that the
   * stream sees the start it answered from and a thousand shards are not parsed again each time.
   */
  def deserializeOffset(json: String): KinesisSourceOffset = lastDeserialized match {
    case Some((known, offset)) if known == json => offset
    case _ =>
      val offset = KinesisSourceOffset.fromJson(json, offsetLogNote)
      lastDeserialized = Some(json -> offset)
      offset
  }

  @volatile private var lastDeserialized = Option.empty[(String, KinesisSourceOffset)]

  /** Where Spark keeps this source's offsets, for an offset that cannot be read. */
  private lazy val offsetLogNote =
    CheckpointFiles.queryCheckpoint(checkpointLocation).fold("")(c => s" in the offset log $c/offsets")

  /**
   * The metrics of every mode, with the Databricks source's names: the lag behind each shard's newest
   * record (`behind`, per shard; a stream whose calls fail has none, as the last one known would say all
   * is well; with several streams, each stream's too), how long since a call to each stream last succeeded, the shard counts, the streams, the
   * enhanced fan-out consumers read through, and AWS' throttling answers to the query's calls since it
   * started: the driver's, and `taskRateLimitErrors`, those its tasks counted.
   */
  def metrics(behind: Map[ShardKey, Long], taskRateLimitErrors: Long): Map[String, String] = {
    val failing = config.streams.filter(health.failing).toSet
    val lag = lastLag match {
      // Spark asks at every trigger, every 10 ms while nothing arrives; `behind` is the same map until a
      // prefetch job's answers change it.
      case Some((b, f, metrics)) if (b eq behind) && f == failing => metrics
      case _ =>
        val known = behind.filter { case (key, _) => !failing.contains(key.stream) }
        val byStream =
          if (config.streams.size < 2) Map.empty[String, String]
          else
            known.groupBy(_._1.stream).flatMap { case (stream, shards) =>
              lagMetrics(shards.values).map { case (name, value) => s"$name.$stream" -> value }
            }
        val metrics = lagMetrics(known.values) ++ byStream
        lastLag = Some((behind, failing, metrics))
        metrics
    }
    val (total, closed) = lastShardCounts
    val sinceSuccess = config.streams.map(s => s -> health.secondsSinceLastSuccess(s))
    val perStream =
      if (config.streams.size < 2) Map.empty[String, String]
      else sinceSuccess.map { case (s, seconds) => s"secondsSinceLastSuccessfulCall.$s" -> seconds.toString }.toMap
    lag ++ perStream ++ Map(
      "secondsSinceLastSuccessfulCall" -> sinceSuccess.map(_._2).max.toString,
      "numTotalShards" -> total.toString,
      "numClosedShards" -> closed.toString,
      "numStreams" -> config.streams.size.toString,
      "numRegisteredConsumers" -> (if (consumersInUse) consumers.fold(0)(_.inUse) else 0).toString,
      "numAwsRateLimitErrors" -> (driverRateLimitErrors.total + taskRateLimitErrors).toString
    )
  }

  @volatile private var lastLag = Option.empty[(Map[ShardKey, Long], Set[String], Map[String, String])]

  private val gauges = newGauges(config.streams)

  /**
   * The metrics of the progress Spark is making, as the stream of the query's mode reports them all: the
   * gauges of Spark's metric system show them from now on (registered at the first progress), and Spark
   * gets them.
   */
  def published(metrics: Map[String, String]): java.util.Map[String, String] = {
    gauges.publish(metrics)
    metrics.asJava
  }

  /**
   * The query stops (after its batches' reading has), or failed: the gauges are removed, consumers are
   * deregistered if asked, the client closed.
   */
  def stop(): Unit =
    try gauges.stop()
    finally {
      if (config.consumer.deregisterOnStop && consumersInUse) consumers.foreach(_.deregister())
      apiInUse.foreach(_.close())
    }
}

private[sparkkinesis] object QueryStreams {

  /**
   * The streams of a query Spark runs: read with the connector's reading client, the checkpoint through the
   * session's Hadoop settings, the consumers named after Spark's id of the query, the metrics in Spark's
   * metric system if the session says so.
   */
  def apply(config: KinesisSourceConfig, checkpointLocation: String): QueryStreams =
    new QueryStreams(
      config,
      checkpointLocation,
      SystemClock,
      () => KinesisClientFactory.create(config.aws, ClientUse.Reading),
      () => SparkSession.active.sparkContext.hadoopConfiguration,
      streamingQueryId,
      QueryGauges.inSpark
    )

  /** The id of the streaming query whose thread calls, as Spark sets it; stable across restarts. */
  def streamingQueryId(): Option[String] =
    Option(SparkSession.active.sparkContext.getLocalProperty("sql.streaming.queryId"))

  /**
   * Where a batch starts from: the stream identities to record, every shard not read to its end (with the
   * children of those that are), and of them the shards a batch may read now.
   */
  final case class Positions(
      recorded: Map[String, StreamIdentity],
      tracked: Map[ShardKey, ShardPosition],
      readable: Map[ShardKey, ShardPosition])

  /** The lag metrics of shards `behind` their newest records by so many ms; none without a shard. */
  def lagMetrics(behind: Iterable[Long]): Map[String, String] =
    if (behind.isEmpty) Map.empty
    else
      Map(
        "avgMsBehindLatest" -> (behind.sum.toDouble / behind.size).toString,
        "maxMsBehindLatest" -> behind.max.toString,
        "minMsBehindLatest" -> behind.min.toString)

  /** Pauses between attempts at the first listing of the shards while Kinesis cannot be reached. */
  private val ListRetryMinMs = 500L
  private val ListRetryMaxMs = 10000L
}
