// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.{ApiFailures, ClientUse, KinesisApi, KinesisClientFactory, ShardInfo}
import io.github.sparkkinesis.config.{AwsConfig, InitialPosition, KinesisOptions, KinesisSourceConfig, TriggerLimits}
import io.github.sparkkinesis.consumers.StreamConsumers
import io.github.sparkkinesis.errors.{ErrorCondition, KinesisErrors, KinesisException}
import io.github.sparkkinesis.health.KinesisHealth
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition, StreamIdentity}
import io.github.sparkkinesis.prefetch._
import io.github.sparkkinesis.reading.Backoff
import io.github.sparkkinesis.shards.{ShardDiscovery, ShardLineage, StreamIdentities}
import io.github.sparkkinesis.shims.SparkShims
import io.github.sparkkinesis.util.{Clock, DaemonThreads, SystemClock}
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming._
import org.apache.spark.sql.SparkSession
import org.slf4j.LoggerFactory

/**
 * The driver's side of a streaming read. A background [[Prefetcher]] reads the shards into blocks on the
 * executors; for each batch this class lists the shards, fixes how far each is read from what has been
 * prefetched (the batch's end offset, which Spark writes to its offset log before any task runs), and
 * turns the range between two offsets into input partitions over the blocks. Commits free the blocks.
 *
 * Spark calls it from the query's thread. Makes no calls to Kinesis until Spark asks for an offset.
 */
private[sparkkinesis] final class KinesisMicroBatchStream(
    config: KinesisSourceConfig,
    checkpointLocation: String,
    clock: Clock = SystemClock,
    newApi: AwsConfig => KinesisApi = KinesisClientFactory.create(_, ClientUse.Reading),
    hadoopConf: () => Configuration = () => SparkSession.active.sparkContext.hadoopConfiguration,
    runtime: PrefetchRuntime = SparkPrefetchRuntime,
    queryId: () => Option[String] = KinesisMicroBatchStream.streamingQueryId
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

  /** Whether Kinesis answers the source's calls; bounds outages by the option outageTimeout. */
  private lazy val health = new KinesisHealth(api.target, config.description, "read", config.outageTimeoutMs, clock)
  private lazy val discovery =
    new ShardDiscovery(api, config.streams, config.maxShardsPerDescribe, config.shardFetchIntervalMs, clock, health)
  private lazy val identities = new StreamIdentities(api, config.streams)

  /** The block id namespace of this source. */
  private val streamId = BlockRef.newStreamId()
  private val catalog = new BlockCatalog(config.prefetch)
  private var prefetcherInUse = Option.empty[Prefetcher]
  private lazy val prefetcher: Prefetcher = {
    val created = new Prefetcher(
      catalog,
      runtime.jobs(config),
      runtime.store,
      config.prefetch,
      streamId,
      () => availableNowCutoff.getOrElse(Long.MaxValue),
      config.description,
      clock,
      health,
      consumers
    )
    prefetcherInUse = Some(created)
    created
  }

  /**
   * Under consumerMode efo, the query's consumers; named when prefetching (or a real-time batch) starts, on
   * the query's thread.
   */
  private lazy val consumers: Option[StreamConsumers] =
    if (!config.consumer.isEfo) None
    else {
      val names = config.consumer.namesFor(
        config.streams,
        queryId().getOrElse(
          throw KinesisErrors.missingOption(KinesisOptions.ConsumerName.key, "my-query")
        )
      )
      log.info(
        s"$this reads through enhanced fan-out consumers ${names.map { case (s, n) => s"$s: $n" }.mkString(", ")}")
      val created = new StreamConsumers(api, names, config.consumer.refreshIntervalMs, clock)
      consumersInUse = true
      Some(created)
    }

  /** Whether the consumers were named, so that stopping deregisters them if asked to. */
  @volatile private var consumersInUse = false

  /** Under consumerMode efo, the ARN of each stream's consumer, registered and ACTIVE; else none. */
  private[sparkkinesis] def consumerArns(): Map[String, String] =
    consumers.fold(Map.empty[String, String])(_.arns())

  /** A task found the consumer of `stream` gone: the next [[consumerArns]] registers it again. */
  private[sparkkinesis] def consumerLost(stream: String): Unit = consumers.foreach(_.lost(stream))

  /** Under Trigger.AvailableNow: the run's start. */
  @volatile private var availableNowCutoff = Option.empty[Long]

  /** Whether this run's first offset has waited for the prefetcher's first answers. */
  private var firstAnswersAwaited = false

  /** Shards listed at the last batch planning, and how many of them are closed. */
  @volatile private var lastShardCounts = (0, 0)

  override def initialOffset(): Offset =
    new InitialOffsetStore(checkpointLocation, hadoopConf()).getOrCreate(resolveInitialOffset())

  private def resolveInitialOffset(): KinesisSourceOffset = {
    val listed = listShards()
    val now = clock.nowMillis()
    val positions = config.initialPosition match {
      case InitialPosition.AfterOffset(offset) => ShardLineage.startingAfter(offset.shards, listed)
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
    val offset = KinesisSourceOffset(positions, onDriver("DescribeStreamSummary")(identities.current()))
    log.info(
      s"Initial offset of $this (initialPosition=${config.initialPosition}, shards=${positions.size}): ${offset.json}"
    )
    offset
  }

  override def latestOffset(): Offset =
    throw new UnsupportedOperationException(
      "The Kinesis source is asked for offsets with latestOffset(Offset, ReadLimit)"
    )

  override def getDefaultReadLimit: ReadLimit = {
    val limits =
      config.limits.maxRecords.map(ReadLimit.maxRows).toSeq ++ config.limits.maxBytes.map(SparkShims.maxBytesLimit)
    limits match {
      case Seq() => ReadLimit.allAvailable()
      case Seq(one) => one
      case several => ReadLimit.compositeLimit(several.toArray)
    }
  }

  /**
   * The end of the next batch: for every shard the batch may read (its parents read to their ends), as far
   * as the prefetcher has read it, within `limit`. Under Trigger.AvailableNow this waits for the prefetcher
   * until some shard moves or every shard has been read up to the run's start, because Spark ends the run
   * at the first offset that does not move.
   */
  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val from = start.asInstanceOf[KinesisSourceOffset]
    val listed = listShards()
    lastAnswer.filter(_.answers(from, limit, listed, catalog.version)) match {
      case Some(same) =>
        health.check()
        throwIfPrefetchFailed(same.offset.identities)
        same.offset
      case None =>
        val version = catalog.version
        val offset = nextOffset(from, limit, listed)
        lastAnswer = Some(LatestAnswer(from, limit, listed, version, offset))
        offset
    }
  }

  /**
   * The last offset [[latestOffset]] returned, and what it was worked out from: asked again from the same
   * start with the same limit, the same shards listed and no change in the catalog since, the answer is
   * the same. Spark asks about every 10 ms while nothing arrives; over a thousand shards working it out
   * again each time was most of an idle query's CPU.
   */
  @volatile private var lastAnswer = Option.empty[LatestAnswer]

  private def nextOffset(
      from: KinesisSourceOffset,
      limit: ReadLimit,
      listed: Map[ShardKey, ShardInfo]): KinesisSourceOffset = {
    val (recorded, tracked, readable) = continueFrom(from, listed)
    if (!firstAnswersAwaited) awaitFirstAnswers(readable.keySet)
    val limits = limitsOf(limit)
    var advanced = advance(readable, limits)
    if (availableNowCutoff.isDefined) {
      while (advanced.isEmpty && !catalog.allCaughtUpToCutoff) {
        catalog.awaitChange(AvailableNowWaitMs)
        throwIfPrefetchFailed(recorded)
        advanced = advance(readable, limits)
      }
    }
    KinesisSourceOffset(tracked ++ advanced, recorded)
  }

  /**
   * The first offset of a run waits up to [[FirstAnswersWaitMs]] (real time) for the prefetcher to report
   * on every shard it reads, so that the run's first batch has the data already there and its first
   * progress the lag behind each shard, instead of an empty batch and no lag.
   */
  private def awaitFirstAnswers(shards: Set[ShardKey]): Unit = {
    firstAnswersAwaited = true
    val deadline = System.nanoTime() + FirstAnswersWaitMs * 1000000L
    var left = FirstAnswersWaitMs
    while (left > 0 && !catalog.answered(shards) && catalog.failure.isEmpty) {
      catalog.awaitChange(left)
      left = (deadline - System.nanoTime()) / 1000000L
    }
  }

  /**
   * Checks that `offset`, the start of the next batch, fits the streams as they are now, and has the
   * prefetcher read on from it. Returns what [[positionsFrom]] does.
   */
  private def continueFrom(offset: KinesisSourceOffset, listed: Map[ShardKey, ShardInfo])
      : (Map[String, StreamIdentity], Map[ShardKey, ShardPosition], Map[ShardKey, ShardPosition]) = {
    val (recorded, tracked, readable) = positionsFrom(offset, listed)
    removeBlocks(catalog.sync(readable, listed.collect { case (key, shard) if shard.isClosed => key }.toSet))
    prefetcher.start()
    (recorded, tracked, readable)
  }

  /**
   * Checks that `offset`, the start of the next batch, fits the streams as they are now (`listed`, by
   * default listed now). Returns the stream identities to record, the shards not read to their end (with
   * the children of those that are), and of them those readable now (their parents read to their ends).
   * Starts nothing: real-time mode reads from here without prefetching.
   */
  private[sparkkinesis] def positionsFrom(offset: KinesisSourceOffset, listed: Map[ShardKey, ShardInfo] = listShards())
      : (Map[String, StreamIdentity], Map[ShardKey, ShardPosition], Map[ShardKey, ShardPosition]) = {
    val recorded = checkStreams(offset)
    health.check()
    throwIfPrefetchFailed(recorded)
    identities.checkShards(offset.shards, listed)
    val tracked = ShardLineage.track(withoutExpiredShards(offset.shards, listed), listed)
    val readable = tracked.filter { case (key, _) => ShardLineage.readable(key, tracked, listed) }
    lastShardCounts = (listed.size, listed.values.count(_.isClosed))
    (recorded, tracked, readable)
  }

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
    case ShardPosition.AtTimestamp(ms) => s"records from ${java.time.Instant.ofEpochMilli(ms)} on"
    case _ => "records"
  }

  /** The shards that move, and to where: the prefetched stretches the catalog plans, cut at a limit. */
  private def advance(readable: Map[ShardKey, ShardPosition], limits: TriggerLimits): Map[ShardKey, ShardPosition] = {
    val plan = catalog.plan(readable, limits)
    val cut = plan.crossing.flatMap(cutAt)
    (plan.ends ++ cut).filter { case (key, position) => readable.get(key).forall(_ != position) }
  }

  /**
   * Where a trigger limit falls inside a prefetched stretch: the stretch's records are read (from its
   * block, or Kinesis) to find the last sequence number within the limit, and the catalog splits the
   * stretch there. A batch takes at least one record, however large.
   */
  private def cutAt(crossing: BlockCatalog.Crossing): Option[(ShardKey, ShardPosition)] = {
    val segment = crossing.segment
    val minimum = if (crossing.anyTaken) 0L else 1L
    val (count, bytes, last) = DaemonThreads.shieldedFromInterrupts {
      val (_, records) = SegmentReader.read(segment, runtime.store, api, config.reading, clock)
      var count = 0L
      var bytes = 0L
      var last = Option.empty[ShardPosition.After]
      var fits = true
      while (fits && records.next()) {
        fits = count < minimum || (count < crossing.records && bytes + records.dataLength <= crossing.bytes)
        if (fits) {
          count += 1
          bytes += records.dataLength
          last = Some(records.position)
        }
      }
      (count, bytes, last)
    }
    last.map(at => segment.shard -> catalog.cut(segment, at, count, bytes))
  }

  private def limitsOf(limit: ReadLimit): TriggerLimits = limit match {
    case rows: ReadMaxRows => TriggerLimits(Some(rows.maxRows()), None)
    case composite: CompositeReadLimit =>
      composite.getReadLimits.map(limitsOf).foldLeft(TriggerLimits(None, None)) { (a, b) =>
        TriggerLimits(a.maxRecords.orElse(b.maxRecords), a.maxBytes.orElse(b.maxBytes))
      }
    case other => TriggerLimits(None, SparkShims.maxBytesOf(other))
  }

  /** Trigger.AvailableNow: records that arrived before this instant are read, in as many batches as needed. */
  override def prepareForTriggerAvailableNow(): Unit = {
    val cutoff = clock.nowMillis()
    availableNowCutoff = Some(cutoff)
    log.info(s"$this reads, in this run, what arrived before ${java.time.Instant.ofEpochMilli(cutoff)}")
  }

  /** A prefetch failure that stops the query; a stream that seems gone may have been recreated. */
  private def throwIfPrefetchFailed(recorded: Map[String, StreamIdentity]): Unit = catalog.failure.foreach { e =>
    if (ErrorCondition.unapply(e).contains(ErrorCondition.StreamNotFound))
      onDriver("DescribeStreamSummary")(identities.recheck(recorded))
    throw e
  }

  /**
   * The streams' shards. While Kinesis cannot be reached (or fails every call) at the first listing, tries
   * again with backoff until the option outageTimeout has passed, as prefetching does later.
   */
  private[sparkkinesis] def listShards(): Map[ShardKey, ShardInfo] = {
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
  private def onDriver[T](action: String)(body: => T): T =
    ApiFailures.userFacing(action, config.streams.mkString(","), api) {
      DaemonThreads.shieldedFromInterrupts(body)
    }

  /**
   * The batch's stretches from the catalog, or, for a shard whose range the catalog does not hold (the
   * query restarted, or blocks were lost), its whole range to be read from Kinesis again.
   *
   * A restarted query replays its last batch, if it was not committed, before it asks for a new offset:
   * the streams and shards of the batch's end are checked then as they are for a new batch, and the
   * prefetcher starts reading on from there while the replayed batch's tasks read its range from Kinesis.
   */
  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val from = start.asInstanceOf[KinesisSourceOffset].shards
    val to = end.asInstanceOf[KinesisSourceOffset].shards
    if (prefetcherInUse.isEmpty) continueFrom(end.asInstanceOf[KinesisSourceOffset], listShards())
    val segments = to.toSeq.sortBy { case (key, _) => (key.stream, key.shardId) }.flatMap { case (key, until) =>
      val since = from.getOrElse(key, ShardPosition.TrimHorizon)
      if (since == until) Nil
      else
        catalog.covering(key, since, until) match {
          case Some(parts) => parts.filter(_.records > 0)
          case None => Seq(Segment(key, since, until, records = 0, bytes = 0, block = None))
        }
    }
    val groups = BatchPartitioning.group(
      segments,
      config.prefetch.coalesceThresholdBlockSize,
      config.prefetch.coalesceBinSize
    )
    groups.map { group =>
      KinesisInputPartition(group, config.aws, config.reading, BatchPartitioning.locations(group))
    }.toArray
  }

  override def createReaderFactory(): PartitionReaderFactory = new KinesisPartitionReaderFactory(runtime)

  /**
   * Shown in every query progress under `sources[].metrics`, with the Databricks source's names: the lag
   * behind each shard's newest record (from GetRecords' MillisBehindLatest), the bytes prefetched and not
   * yet committed, the shard counts, how often prefetching was throttled, and (ours) how many records
   * looked like KPL aggregated records but were corrupt and were passed on whole.
   */
  override def metrics(latestConsumedOffset: java.util.Optional[Offset]): java.util.Map[String, String] = {
    // A stream whose calls fail has no lag to show: the last one known would say all is well.
    val failing = config.streams.filter(health.failing).toSet
    val behind = catalog.millisBehindLatest.filter { case (key, _) => !failing.contains(key.stream) }
    val (total, closed) = lastShardCounts
    val lag = lagMetrics(behind.values)
    val sinceSuccess = config.streams.map(s => s -> health.secondsSinceLastSuccess(s))
    val perStream =
      if (config.streams.size < 2) Map.empty[String, String]
      else sinceSuccess.map { case (s, seconds) => s"secondsSinceLastSuccessfulCall.$s" -> seconds.toString }.toMap
    (lag ++ perStream ++ Map(
      "secondsSinceLastSuccessfulCall" -> sinceSuccess.map(_._2).max.toString,
      "totalPrefetchedBytes" -> catalog.bufferedBytes.toString,
      "numTotalShards" -> total.toString,
      "numClosedShards" -> closed.toString,
      "numThrottledFetches" -> catalog.throttledFetches.toString,
      "numCorruptAggregatedRecords" -> catalog.corruptAggregates.toString
    )).asJava
  }

  /**
   * Spark hands each batch's start back as JSON, and asks for it again before every offset it asks for
   * (about every 10 ms while nothing arrives): the same JSON gets the offset it got before, so that
   * [[latestOffset]] sees the start it answered from and a thousand shards are not parsed again each time.
   */
  override def deserializeOffset(json: String): Offset = lastDeserialized match {
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

  /** The batch up to `end` is done: its blocks are freed. */
  override def commit(end: Offset): Unit =
    removeBlocks(catalog.release(end.asInstanceOf[KinesisSourceOffset].shards))

  private def removeBlocks(blocks: Seq[BlockRef]): Unit =
    if (blocks.nonEmpty) {
      try runtime.store.remove(blocks)
      catch { case scala.util.control.NonFatal(e) => log.warn(s"Could not remove ${blocks.size} blocks", e) }
    }

  override def stop(): Unit = {
    prefetcherInUse.foreach(_.stop())
    // Prefetching stops first, so no task subscribes again; subscriptions still open end with the consumers.
    if (config.consumer.deregisterOnStop && consumersInUse) consumers.foreach(_.deregister())
    apiInUse.foreach(_.close())
  }

  override def toString: String = config.description
}

private[sparkkinesis] object KinesisMicroBatchStream {

  /** The lag metrics of shards `behind` their newest records by so many ms; none without a shard. */
  def lagMetrics(behind: Iterable[Long]): Map[String, String] =
    if (behind.isEmpty) Map.empty
    else
      Map(
        "avgMsBehindLatest" -> (behind.sum.toDouble / behind.size).toString,
        "maxMsBehindLatest" -> behind.max.toString,
        "minMsBehindLatest" -> behind.min.toString)

  /** How long AvailableNow waits for the prefetcher between looks at the catalog. */
  val AvailableNowWaitMs = 100L

  /** How long the first offset of a run waits for the prefetcher's first answers. */
  private val FirstAnswersWaitMs = 2000L

  /** Pauses between attempts at the first listing of the shards while Kinesis cannot be reached. */
  private val ListRetryMinMs = 500L
  private val ListRetryMaxMs = 10000L

  /**
   * An offset [[KinesisMicroBatchStream.latestOffset]] returned and what it was worked out from: the start
   * (the same object: Spark passes the batch's start again until a batch runs), the limit, the shards as
   * listed (the same listing: the discovery keeps its list between refreshes) and the catalog's version
   * before the offset was worked out.
   */
  private final case class LatestAnswer(
      from: KinesisSourceOffset,
      limit: ReadLimit,
      listed: Map[ShardKey, ShardInfo],
      catalogVersion: Long,
      offset: KinesisSourceOffset) {

    def answers(
        start: KinesisSourceOffset,
        asked: ReadLimit,
        shards: Map[ShardKey, ShardInfo],
        version: Long): Boolean =
      (start eq from) && asked == limit && (shards eq listed) && version == catalogVersion
  }

  /** The id of the streaming query whose thread calls, as Spark sets it; stable across restarts. */
  def streamingQueryId(): Option[String] =
    Option(SparkSession.active.sparkContext.getLocalProperty("sql.streaming.queryId"))
}
