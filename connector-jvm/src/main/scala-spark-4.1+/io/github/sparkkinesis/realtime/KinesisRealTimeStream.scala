// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.config.{KinesisOptions, KinesisSourceConfig}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition, StreamIdentity}
import io.github.sparkkinesis.prefetch.{PrefetchRuntime, SparkPrefetchRuntime}
import io.github.sparkkinesis.source.KinesisMicroBatchStream
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming._
import org.apache.spark.sql.SparkSession
import org.slf4j.LoggerFactory

/**
 * The source's stream on Spark 4.1 and later, where a query may run in real-time mode
 * (`Trigger.RealTime`). Spark says so only after it made the stream, with [[prepareForRealTimeMode]]: until
 * then, and for every other trigger, each call goes to the micro-batch stream `batch`.
 *
 * In real-time mode nothing is prefetched. Each long batch starts from the last one's end: the driver
 * checks the streams and shards from there as for a micro-batch ([[KinesisMicroBatchStream.positionsFrom]])
 * and plans a task per shard readable now (its parents read to their ends), or per group of them when
 * there are fewer cores than shards, each reading its shards for the whole batch ([[RealTimeReader]]), by
 * polling or, under `consumerMode` efo, through the query's consumer. When the batch ends, the tasks'
 * positions of each shard ([[RealTimeTaskOffset]]) make its end offset, which Spark writes to its offset
 * log then; a shard read to its end lets its children be read from the next batch on, so each key's
 * records stay in order.
 *
 * @param cores how many tasks can run at once: Spark's default parallelism
 */
private[sparkkinesis] final class KinesisRealTimeStream(
    batch: KinesisMicroBatchStream,
    config: KinesisSourceConfig,
    runtime: PrefetchRuntime = SparkPrefetchRuntime,
    cores: () => Int = () => SparkSession.active.sparkContext.defaultParallelism)
    extends MicroBatchStream
    with SupportsTriggerAvailableNow
    with ReportsSourceMetrics
    with SupportsRealTimeMode {
  import KinesisRealTimeStream._

  private val log = LoggerFactory.getLogger(getClass)

  @volatile private var realTime = false

  /** The start of the batch being read, as planned: what its end offset is merged onto. */
  @volatile private var planned = Option.empty[Planned]

  /** Per shard, MillisBehindLatest as the last batch's tasks left it. */
  @volatile private var lag = Map.empty[ShardKey, Long]

  /** Real-time mode: refuses the options that mean nothing in it, then reads without prefetching. */
  override def prepareForRealTimeMode(): Unit = {
    KinesisOptions.NotInRealTimeMode.foreach { case (option, reason) =>
      if (config.givenOptions.contains(option.key)) throw KinesisErrors.optionNotInRealTimeMode(option.key, reason)
    }
    realTime = true
    log.info(
      s"$this runs in real-time mode: each batch's tasks read their shards for the whole batch, nothing prefetched")
  }

  override def initialOffset(): Offset = batch.initialOffset()

  override def deserializeOffset(json: String): Offset = batch.deserializeOffset(json)

  override def getDefaultReadLimit: ReadLimit =
    if (realTime) ReadLimit.allAvailable() else batch.getDefaultReadLimit

  override def latestOffset(): Offset = batch.latestOffset()

  /**
   * In real-time mode Spark keeps this offset only for its progress report: the start, with the shards
   * found since (children of shards read to their end), checked against the streams as they are now.
   */
  override def latestOffset(start: Offset, limit: ReadLimit): Offset =
    if (!realTime) batch.latestOffset(start, limit)
    else {
      val (recorded, tracked, _) = batch.positionsFrom(start.asInstanceOf[KinesisSourceOffset])
      KinesisSourceOffset(tracked, recorded)
    }

  override def reportLatestOffset(): Offset = batch.reportLatestOffset()

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] =
    batch.planInputPartitions(start, end)

  /**
   * A real-time batch: the shards readable from `start`, a task for each, or, with fewer cores than shards
   * (Spark's default parallelism), as many tasks as there are cores, the shards dealt to them in turn: each
   * task runs for the whole batch, so all of them must run at once.
   */
  override def planInputPartitions(start: Offset): Array[InputPartition] = {
    val listed = batch.listShards()
    val (recorded, tracked, readable) = batch.positionsFrom(start.asInstanceOf[KinesisSourceOffset], listed)
    val consumers = batch.consumerArns()
    planned = Some(Planned(recorded, tracked))
    // Under consumerMode efo open shards are read through the consumer; closed ones are polled, as
    // GetRecords is what tells for certain where a closed shard ends.
    val shards = readable.toSeq
      .filter(_._2 != ShardPosition.ShardEnd)
      .sortBy { case (k, _) => (k.stream, k.shardId) }
      .map { case (key, from) =>
        RealTimeShard(key, from, consumers.get(key.stream).filterNot(_ => listed.get(key).exists(_.isClosed)))
      }
    val slots = cores()
    val tasks = tasksOf(shards, slots)
    if (tasks.size < shards.size)
      log.info(
        s"$this reads ${shards.size} shards in real time on $slots cores (Spark's default parallelism): " +
          s"${tasks.size} tasks of up to ${tasks.map(_.size).max} shards each")
    tasks.map(RealTimeInputPartition(_, config.aws, config.reading)).toArray
  }

  /** The batch's end: where its tasks left each shard, the shards they did not read as they were. */
  override def mergeOffsets(offsets: Array[PartitionOffset]): Offset = {
    val start = planned.getOrElse(throw new IllegalStateException(s"$this merges offsets of a batch it did not plan"))
    val reached = offsets.toSeq.flatMap(_.asInstanceOf[RealTimeTaskOffset].shards)
    lag = reached.flatMap(o => o.millisBehindLatest.map(o.shard -> _)).toMap
    reached.filter(_.consumerGone).map(_.shard.stream).distinct.foreach(batch.consumerLost)
    KinesisSourceOffset(start.tracked ++ reached.map(o => o.shard -> o.position), start.recorded)
  }

  override def createReaderFactory(): PartitionReaderFactory =
    if (realTime) new RealTimeReaderFactory(runtime) else batch.createReaderFactory()

  override def prepareForTriggerAvailableNow(): Unit = batch.prepareForTriggerAvailableNow()

  /** The micro-batch stream's metrics; in real-time mode the lag is the tasks' of the last batch. */
  override def metrics(latestConsumedOffset: java.util.Optional[Offset]): java.util.Map[String, String] = {
    val shown = batch.metrics(latestConsumedOffset).asScala.toMap
    (if (realTime) shown ++ KinesisMicroBatchStream.lagMetrics(lag.values) else shown).asJava
  }

  override def commit(end: Offset): Unit = batch.commit(end)

  override def stop(): Unit = batch.stop()

  override def toString: String = batch.toString
}

private[sparkkinesis] object KinesisRealTimeStream {

  /** A planned batch's start: the stream identities to record and every shard's position. */
  private final case class Planned(recorded: Map[String, StreamIdentity], tracked: Map[ShardKey, ShardPosition])

  /** `shards` dealt in turn to at most `cores` tasks; none without shards. */
  def tasksOf[T](shards: Seq[T], cores: Int): Seq[Seq[T]] = {
    val tasks = math.min(shards.size, math.max(1, cores))
    (0 until tasks).map(t => (t until shards.size by tasks).map(shards))
  }
}

/** Creates the readers of a real-time batch's tasks on executors. */
private[sparkkinesis] final class RealTimeReaderFactory(runtime: PrefetchRuntime) extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val shards = partition.asInstanceOf[RealTimeInputPartition]
    new RealTimeReader(shards, runtime.executorApi(shards.aws))
  }
}
