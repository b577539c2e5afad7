// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import io.github.sparkkinesis.config.KinesisSourceConfig
import io.github.sparkkinesis.realtime.KinesisRealTimeStream
import io.github.sparkkinesis.source.{KinesisMicroBatchStream, QueryStreams}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming._

/**
 * The source's stream on Spark 4.1 and later, where a query reads micro-batches or runs in real-time mode
 * (`Trigger.RealTime`). Spark makes the stream before it says which: it calls [[prepareForRealTimeMode]]
 * while it plans the query, after it made its sources and before it asks any of them for a read limit or
 * an offset (`MicroBatchExecution.logicalPlan`). So this stream holds only what both modes share, the
 * query's `source.QueryStreams` (enough for the initial offset and the offsets Spark reads back from its
 * log), and hands every other call to the stream of its mode: a `realtime.KinesisRealTimeStream`, made
 * when Spark says real-time mode, or else a `source.KinesisMicroBatchStream`, with its block catalog and
 * prefetcher, made at the first call that needs it. A real-time query never makes the latter.
 *
 * Spark calls it from the query's thread, and may stop it from another.
 */
private[sparkkinesis] final class EitherModeStream(
    config: KinesisSourceConfig,
    streams: QueryStreams,
    newMicroBatches: QueryStreams => KinesisMicroBatchStream,
    newRealTime: QueryStreams => KinesisRealTimeStream)
    extends MicroBatchStream
    with SupportsTriggerAvailableNow
    with SupportsRealTimeMode
    with ReportsSourceMetrics {
  import EitherModeStream._

  private var made = Option.empty[Mode]

  /** The stream of the query's mode: micro-batches unless Spark said real-time mode first. */
  private def mode: Mode = synchronized {
    made.getOrElse {
      val microBatches = newMicroBatches(streams)
      made = Some(microBatches)
      microBatches
    }
  }

  /** Real-time mode: what reads it is made now, and refuses the options that mean nothing in it. */
  override def prepareForRealTimeMode(): Unit = synchronized {
    made.foreach(m => throw new IllegalStateException(s"$this was told real-time mode after it read as $m"))
    val realTime = newRealTime(streams)
    realTime.prepareForRealTimeMode()
    made = Some(realTime)
  }

  private def realTime: KinesisRealTimeStream = mode match {
    case realTime: KinesisRealTimeStream => realTime
    case _ => throw new IllegalStateException(s"$this reads micro-batches, not in real-time mode")
  }

  override def initialOffset(): Offset = streams.initialOffset()

  override def deserializeOffset(json: String): Offset = streams.deserializeOffset(json)

  override def latestOffset(): Offset = mode.latestOffset()

  override def getDefaultReadLimit: ReadLimit = mode.getDefaultReadLimit

  override def latestOffset(start: Offset, limit: ReadLimit): Offset = mode.latestOffset(start, limit)

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] =
    mode.planInputPartitions(start, end)

  override def planInputPartitions(start: Offset): Array[InputPartition] = realTime.planInputPartitions(start)

  override def mergeOffsets(offsets: Array[PartitionOffset]): Offset = realTime.mergeOffsets(offsets)

  override def createReaderFactory(): PartitionReaderFactory = mode.createReaderFactory()

  /** Trigger.AvailableNow, which reads micro-batches: Spark never asks it of a query in real-time mode. */
  override def prepareForTriggerAvailableNow(): Unit = mode match {
    case microBatches: KinesisMicroBatchStream => microBatches.prepareForTriggerAvailableNow()
    case _ => throw new IllegalStateException(s"$this runs in real-time mode, not Trigger.AvailableNow")
  }

  override def metrics(latestConsumedOffset: java.util.Optional[Offset]): java.util.Map[String, String] =
    mode.metrics(latestConsumedOffset)

  override def commit(end: Offset): Unit = mode.commit(end)

  /** Stops the stream of its mode, which stops the query's streams; or those alone if it read nothing. */
  override def stop(): Unit = synchronized(made).fold(streams.stop())(_.stop())

  override def toString: String = config.description
}

private[sparkkinesis] object EitherModeStream {

  /** What Spark asks of the stream of either mode. */
  private type Mode = MicroBatchStream with SupportsAdmissionControl with ReportsSourceMetrics

  /** The stream of a query Spark runs. */
  def apply(config: KinesisSourceConfig, checkpointLocation: String): EitherModeStream =
    new EitherModeStream(
      config,
      QueryStreams(config, checkpointLocation),
      new KinesisMicroBatchStream(config, _),
      new KinesisRealTimeStream(config, _))
}
