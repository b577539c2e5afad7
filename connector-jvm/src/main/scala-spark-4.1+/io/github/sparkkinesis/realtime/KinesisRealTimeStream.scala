// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import io.github.sparkkinesis.client.{ExecutorApis, RateLimitErrors}
import io.github.sparkkinesis.config.{KinesisOptions, KinesisSourceConfig}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition, StreamIdentity}
import io.github.sparkkinesis.source.QueryStreams
import io.github.sparkkinesis.util.Dealing
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming._
import org.apache.spark.sql.SparkSession
import org.apache.spark.util.LongAccumulator
import org.slf4j.LoggerFactory

/**
 * A query's stream in real-time mode (`Trigger.RealTime`, Spark 4.1 and later): the other way of reading the
 * streams a micro-batch query reads. What it shares with micro-batches (the shards, their lineage, the
 * consumers, the initial offset) is `streams`, the `source.QueryStreams` both modes use, which it stops when
 * it stops; nothing is prefetched. Spark says a query runs in real-time mode only after it made the query's
 * stream, so the stream Spark holds (`EitherModeStream`, in the top package) makes this one once it knows.
 *
 * Each long batch starts from the last one's end: the driver checks the streams and shards from there as
 * for a micro-batch (`QueryStreams.positionsFrom`) and plans a task per shard readable now (its parents
 * read to their ends), or per group of them when there are fewer cores than shards, each reading its shards
 * for the whole batch ([[RealTimeReader]]), by polling or, under `consumerMode` efo, through the query's
 * consumer. When the batch ends, the tasks' positions of each shard ([[RealTimeTaskOffset]]) make its end
 * offset, which Spark writes to its offset log then; a shard read to its end lets its children be read
 * from the next batch on, so each key's records stay in order. Its progress reports the metrics of every
 * mode (`QueryStreams.metrics`) with the lag as the tasks of the last batch left each shard, and none of
 * prefetching's.
 *
 * Spark calls it from the query's thread.
 *
 * @param apis      how its tasks reach Kinesis on the executors
 * @param taskCount a count its tasks add to and the driver reads (a Spark accumulator); called once, on the
 *                  query's thread
 * @param cores     how many tasks can run at once: Spark's default parallelism
 */
private[sparkkinesis] final class KinesisRealTimeStream(
    config: KinesisSourceConfig,
    streams: QueryStreams,
    apis: ExecutorApis = ExecutorApis.Shared,
    taskCount: () => LongAccumulator = () => SparkSession.active.sparkContext.longAccumulator,
    cores: () => Int = () => SparkSession.active.sparkContext.defaultParallelism)
    extends MicroBatchStream
    with SupportsAdmissionControl
    with SupportsRealTimeMode
    with ReportsSourceMetrics {
  import KinesisRealTimeStream._

  private val log = LoggerFactory.getLogger(getClass)

  /** The start of the batch being read, as planned: what its end offset is merged onto. */
  @volatile private var planned = Option.empty[Planned]

  /** Per shard, MillisBehindLatest as the last batch's tasks left it. */
  @volatile private var lag = Map.empty[ShardKey, Long]

  /** AWS' throttling answers to the calls of the tasks, each task's added as it ends. */
  private lazy val taskRateLimitErrors: LongAccumulator = taskCount()

  /**
   * Refuses the options that mean nothing in real-time mode, naming the first given. Called as Spark plans
   * the query, before it asks for any offset.
   */
  override def prepareForRealTimeMode(): Unit = {
    KinesisOptions.NotInRealTimeMode.foreach { case (option, reason) =>
      if (config.givenOptions.contains(option.key)) throw KinesisErrors.optionNotInRealTimeMode(option.key, reason)
    }
    log.info(
      s"$this runs in real-time mode: each batch's tasks read their shards for the whole batch, nothing prefetched")
  }

  override def initialOffset(): Offset = streams.initialOffset()

  override def deserializeOffset(json: String): Offset = streams.deserializeOffset(json)

  override def latestOffset(): Offset =
    throw new UnsupportedOperationException(
      "The Kinesis source is asked for offsets with latestOffset(Offset, ReadLimit)")

  /** A real-time batch reads what comes until Spark ends it: no limit applies. */
  override def getDefaultReadLimit: ReadLimit = ReadLimit.allAvailable()

  /**
   * In real-time mode Spark keeps this offset only for its progress report: the start, with the shards
   * found since (children of shards read to their end), checked against the streams as they are now.
   */
  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val from = streams.positionsFrom(start.asInstanceOf[KinesisSourceOffset], streams.listShards())
    KinesisSourceOffset(from.tracked, from.recorded)
  }

  /** A real-time batch has no end when it is planned: Spark plans it with its start alone. */
  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] =
    throw new UnsupportedOperationException("A real-time batch is planned from its start alone")

  /**
   * A real-time batch: the shards readable from `start`, a task for each, or, with fewer cores than shards
   * (Spark's default parallelism), as many tasks as there are cores, the shards dealt to them in turn: each
   * task runs for the whole batch, so all of them must run at once.
   */
  override def planInputPartitions(start: Offset): Array[InputPartition] = {
    val listed = streams.listShards()
    val from = streams.positionsFrom(start.asInstanceOf[KinesisSourceOffset], listed)
    val consumers = streams.consumerArns()
    planned = Some(Planned(from.recorded, from.tracked))
    // Under consumerMode efo open shards are read through the consumer; closed ones are polled, as
    // GetRecords is what tells for certain where a closed shard ends.
    val shards = from.readable.toIndexedSeq
      .filter(_._2 != ShardPosition.ShardEnd)
      .sortBy { case (k, _) => (k.stream, k.shardId) }
      .map { case (key, position) =>
        RealTimeShard(key, position, consumers.get(key.stream).filterNot(_ => listed.get(key).exists(_.isClosed)))
      }
    val slots = cores()
    val tasks = Dealing.inTurn(shards, slots)
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
    reached.filter(_.consumerGone).map(_.shard.stream).distinct.foreach(streams.consumerLost)
    KinesisSourceOffset(start.tracked ++ reached.map(o => o.shard -> o.position), start.recorded)
  }

  override def createReaderFactory(): PartitionReaderFactory = new RealTimeReaderFactory(apis, taskRateLimitErrors)

  /**
   * The metrics of every mode, with the lag as the last batch's tasks left each shard and AWS' throttling
   * answers to the driver's calls and to those of the tasks that ended.
   */
  override def metrics(latestConsumedOffset: java.util.Optional[Offset]): java.util.Map[String, String] =
    streams.published(streams.metrics(lag, taskRateLimitErrors.value))

  /** Nothing is kept for a batch once it ends: its records went to Spark as they came. */
  override def commit(end: Offset): Unit = ()

  override def stop(): Unit = streams.stop()

  override def toString: String = config.description
}

private[sparkkinesis] object KinesisRealTimeStream {

  /** A planned batch's start: the stream identities to record and every shard's position. */
  private final case class Planned(recorded: Map[String, StreamIdentity], tracked: Map[ShardKey, ShardPosition])
}

/**
 * Creates the readers of a real-time batch's tasks on executors; each adds AWS' throttling answers to its
 * calls to the query's `rateLimitErrors` when it closes.
 */
private[sparkkinesis] final class RealTimeReaderFactory(apis: ExecutorApis, rateLimitErrors: LongAccumulator)
    extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val shards = partition.asInstanceOf[RealTimeInputPartition]
    val throttled = new RateLimitErrors
    new RealTimeReader(
      shards,
      apis.apiFor(shards.aws).counting(throttled),
      onClose = () => {
        rateLimitErrors.add(throttled.take())
      })
  }
}
