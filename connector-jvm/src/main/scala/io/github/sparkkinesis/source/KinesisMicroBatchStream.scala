// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.client.{ExecutorApis, ShardInfo}
import io.github.sparkkinesis.config.{KinesisSourceConfig, TriggerLimits}
import io.github.sparkkinesis.errors.ErrorCondition
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition, StreamIdentity}
import io.github.sparkkinesis.prefetch._
import io.github.sparkkinesis.reading.ArrivalCutoff
import io.github.sparkkinesis.shims.SparkShims
import io.github.sparkkinesis.util.{Clock, DaemonThreads, SystemClock}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming._
import org.apache.spark.util.LongAccumulator
import org.slf4j.LoggerFactory

/**
 * The driver's side of a streaming read. A background [[Prefetcher]] reads the shards into blocks on the
 * executors; for each batch this class lists the shards, fixes how far each is read from what has been
 * prefetched (the batch's end offset, which Spark writes to its offset log before any task runs), and
 * turns the range between two offsets into input partitions over the blocks. Commits free the blocks. What
 * it knows of the streams, whichever way batches are read, is `streams`, which it stops when it stops.
 * Before Spark 4.1 Spark reads through it alone; from 4.1 on, Spark's stream holds the query's streams and
 * makes this class only once it knows that the query reads micro-batches (`EitherModeStream`, in the top
 * package), so that a query in real-time mode has no block catalog and no prefetcher.
 *
 * Spark calls it from the query's thread. Makes no calls to Kinesis until Spark asks for an offset.
 *
 * @param apis how the partition readers reach Kinesis when they read a stretch again
 */
private[sparkkinesis] final class KinesisMicroBatchStream(
    config: KinesisSourceConfig,
    streams: QueryStreams,
    clock: Clock = SystemClock,
    runtime: PrefetchRuntime = SparkPrefetchRuntime,
    apis: ExecutorApis = ExecutorApis.Shared
) extends MicroBatchStream
    with SupportsTriggerAvailableNow
    with ReportsSourceMetrics {

  import KinesisMicroBatchStream._

  private val log = LoggerFactory.getLogger(getClass)

  /**
   * AWS' throttling answers to the calls of the query's tasks (prefetch tasks, partition readers reading a
   * lost block again), each task's added as it ends. Made on the query's thread.
   */
  private lazy val taskRateLimitErrors: LongAccumulator = runtime.taskCount()

  /** The block id namespace of this source. */
  private val streamId = BlockRef.newStreamId()
  private val catalog = new BlockCatalog(config.reading.maxRecordsPerFetch)
  private var prefetcherInUse = Option.empty[Prefetcher]
  private lazy val prefetcher: Prefetcher = {
    val created = new Prefetcher(
      catalog,
      runtime.jobs(config, taskRateLimitErrors),
      runtime.store,
      config.prefetch,
      streamId,
      () => availableNowCutoff,
      config.description,
      clock,
      streams.health,
      streams.consumers
    )
    prefetcherInUse = Some(created)
    created
  }

  /** Under Trigger.AvailableNow: the run's start, and the largest record each stream may hold. */
  @volatile private var availableNowCutoff = Option.empty[ArrivalCutoff]

  /** Whether this run's first offset has waited for the prefetcher's first answers. */
  private var firstAnswersAwaited = false

  override def initialOffset(): Offset = streams.initialOffset()

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
    val listed = streams.listShards()
    lastAnswer.filter(_.answers(from, limit, listed, catalog.version)) match {
      case Some(same) =>
        streams.health.check()
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
    val QueryStreams.Positions(recorded, tracked, readable) = continueFrom(from, listed)
    if (!firstAnswersAwaited) awaitFirstAnswers(readable.keySet)
    val limits = limitsOf(limit)
    var mark = catalog.mark
    var advanced = advance(readable, limits)
    if (availableNowCutoff.isDefined) {
      while (advanced.isEmpty && !catalog.allCaughtUpToCutoff) {
        catalog.awaitChange(mark, AvailableNowWaitMs)
        throwIfPrefetchFailed(recorded)
        mark = catalog.mark
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
    var mark = catalog.mark
    while (left > 0 && !catalog.answered(shards) && catalog.failure.isEmpty) {
      catalog.awaitChange(mark, left)
      mark = catalog.mark
      left = (deadline - System.nanoTime()) / 1000000L
    }
  }

  /**
   * Checks that `offset`, the start of the next batch, fits the streams as they are now, and has the
   * prefetcher read on from it.
   */
  private def continueFrom(offset: KinesisSourceOffset, listed: Map[ShardKey, ShardInfo]): QueryStreams.Positions = {
    val positions = streams.positionsFrom(offset, listed)
    throwIfPrefetchFailed(positions.recorded)
    removeBlocks(catalog.sync(positions.readable, listed.collect { case (key, shard) if shard.isClosed => key }.toSet))
    prefetcher.start()
    positions
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
      val (_, records) = SegmentReader.read(segment, runtime.store, streams.api, config.reading, clock)
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
    availableNowCutoff = Some(ArrivalCutoff(cutoff, streams.recordLimits()))
    log.info(s"$this reads, in this run, what arrived before ${java.time.Instant.ofEpochMilli(cutoff)}")
  }

  /** A prefetch failure that stops the query; a stream that seems gone may have been recreated. */
  private def throwIfPrefetchFailed(recorded: Map[String, StreamIdentity]): Unit = catalog.failure.foreach { e =>
    if (ErrorCondition.unapply(e).contains(ErrorCondition.StreamNotFound)) streams.recheckIdentities(recorded)
    throw e
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
    if (prefetcherInUse.isEmpty) continueFrom(end.asInstanceOf[KinesisSourceOffset], streams.listShards())
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

  override def createReaderFactory(): PartitionReaderFactory =
    new KinesisPartitionReaderFactory(runtime, apis, taskRateLimitErrors)

  /**
   * Shown in every query progress under `sources[].metrics`, with the Databricks source's names: those of
   * every mode ([[QueryStreams.metrics]], the lag as the prefetcher last saw each shard, AWS' throttling
   * answers to the driver's and the tasks' calls), the bytes
   * prefetched and not yet committed, how often prefetching was throttled, and (ours) how many records
   * looked like KPL aggregated records but were corrupt and were passed on whole.
   */
  override def metrics(latestConsumedOffset: java.util.Optional[Offset]): java.util.Map[String, String] = {
    val gauges = catalog.gauges
    streams.published(
      streams.metrics(gauges.millisBehindLatest, taskRateLimitErrors.value) ++ Map(
        "totalPrefetchedBytes" -> gauges.bufferedBytes.toString,
        "totalPrefetchedRecords" -> gauges.bufferedRecords.toString,
        "numPrefetchedBlocks" -> gauges.blocks.toString,
        "numThrottledFetches" -> gauges.throttledFetches.toString,
        "numCorruptAggregatedRecords" -> gauges.corruptAggregates.toString
      ))
  }

  override def deserializeOffset(json: String): Offset = streams.deserializeOffset(json)

  /** The batch up to `end` is done: its blocks are freed. */
  override def commit(end: Offset): Unit =
    removeBlocks(catalog.release(end.asInstanceOf[KinesisSourceOffset].shards))

  private def removeBlocks(blocks: Seq[BlockRef]): Unit =
    if (blocks.nonEmpty) {
      try runtime.store.remove(blocks)
      catch { case scala.util.control.NonFatal(e) => log.warn(s"Could not remove ${blocks.size} blocks", e) }
    }

  override def stop(): Unit = {
    // Prefetching stops first, so no task subscribes again; subscriptions still open end with the consumers.
    prefetcherInUse.foreach(_.stop())
    streams.stop()
  }

  override def toString: String = config.description
}

private[sparkkinesis] object KinesisMicroBatchStream {

  /** The stream of a query Spark runs, over streams of its own. */
  def apply(config: KinesisSourceConfig, checkpointLocation: String): KinesisMicroBatchStream =
    new KinesisMicroBatchStream(config, QueryStreams(config, checkpointLocation))

  /** How long AvailableNow waits for the prefetcher between looks at the catalog. */
  val AvailableNowWaitMs = 100L

  /** How long the first offset of a run waits for the prefetcher's first answers. */
  private val FirstAnswersWaitMs = 2000L

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
}
