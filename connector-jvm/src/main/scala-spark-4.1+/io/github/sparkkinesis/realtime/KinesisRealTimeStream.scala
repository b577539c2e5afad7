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
 * and plans a task per shard readable now (its parents read to their ends), each reading its shard for the
 * whole batch ([[RealTimeShardReader]]), by polling or, under `consumerMode` efo, through the query's
 * consumer. When the batch ends, the tasks' positions
 * ([[RealTimeShardOffset]]) make its end offset, which Spark writes to its offset log then; a shard read to
 * its end lets its children be read from the next batch on, so each key's records stay in order.
 */
private[sparkkinesis] final class KinesisRealTimeStream(
    batch: KinesisMicroBatchStream,
    config: KinesisSourceConfig,
    runtime: PrefetchRuntime = SparkPrefetchRuntime)
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
    log.info(s"$this runs in real-time mode: a task per shard for each batch, nothing prefetched")
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

  /** A real-time batch: a task for each shard readable from `start`, reading until the batch's end. */
  override def planInputPartitions(start: Offset): Array[InputPartition] = {
    val listed = batch.listShards()
    val (recorded, tracked, readable) = batch.positionsFrom(start.asInstanceOf[KinesisSourceOffset], listed)
    val consumers = batch.consumerArns()
    planned = Some(Planned(recorded, tracked))
    val shards = readable.toSeq.filter(_._2 != ShardPosition.ShardEnd).sortBy { case (k, _) => (k.stream, k.shardId) }
    val cores = SparkSession.active.sparkContext.defaultParallelism
    if (shards.size > cores)
      log.warn(
        s"$this reads ${shards.size} shards in real time, each in a task that runs for the whole batch, on " +
          s"$cores cores: a shard's task that gets a core only after the batch's end reads nothing, so such " +
          "shards fall behind, batch after batch. Give the application at least " +
          s"${shards.size} cores.")
    // Under consumerMode efo open shards are read through the consumer; closed ones are polled, as
    // GetRecords is what tells for certain where a closed shard ends.
    shards.map { case (key, from) =>
      val consumer = consumers.get(key.stream).filterNot(_ => listed.get(key).exists(_.isClosed))
      RealTimeInputPartition(key, from, config.aws, config.prefetch, consumer)
    }.toArray
  }

  /** The batch's end: where each of its tasks left its shard, the shards it did not read as they were. */
  override def mergeOffsets(offsets: Array[PartitionOffset]): Offset = {
    val start = planned.getOrElse(throw new IllegalStateException(s"$this merges offsets of a batch it did not plan"))
    val reached = offsets.toSeq.map(_.asInstanceOf[RealTimeShardOffset])
    lag = reached.flatMap(o => o.millisBehindLatest.map(o.shard -> _)).toMap
    KinesisSourceOffset(start.tracked ++ reached.map(o => o.shard -> o.position), start.recorded)
  }

  override def createReaderFactory(): PartitionReaderFactory =
    if (realTime) new RealTimeReaderFactory(runtime) else batch.createReaderFactory()

  override def prepareForTriggerAvailableNow(): Unit = batch.prepareForTriggerAvailableNow()

  /** The micro-batch stream's metrics; in real-time mode the lag is the tasks' of the last batch. */
  override def metrics(latestConsumedOffset: java.util.Optional[Offset]): java.util.Map[String, String] = {
    val shown = batch.metrics(latestConsumedOffset).asScala.toMap
    val behind = lag.values
    val withLag =
      if (!realTime || behind.isEmpty) shown
      else
        shown ++ Map(
          "avgMsBehindLatest" -> (behind.sum.toDouble / behind.size).toString,
          "maxMsBehindLatest" -> behind.max.toString,
          "minMsBehindLatest" -> behind.min.toString)
    withLag.asJava
  }

  override def commit(end: Offset): Unit = batch.commit(end)

  override def stop(): Unit = batch.stop()

  override def toString: String = batch.toString
}

private[sparkkinesis] object KinesisRealTimeStream {

  /** A planned batch's start: the stream identities to record and every shard's position. */
  private final case class Planned(recorded: Map[String, StreamIdentity], tracked: Map[ShardKey, ShardPosition])
}

/** Creates the readers of a real-time batch's shards on executors. */
private[sparkkinesis] final class RealTimeReaderFactory(runtime: PrefetchRuntime) extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val shard = partition.asInstanceOf[RealTimeInputPartition]
    new RealTimeShardReader(shard, runtime.executorApi(shard.aws))
  }
}
