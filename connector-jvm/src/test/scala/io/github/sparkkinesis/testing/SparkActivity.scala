// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import org.apache.spark.scheduler._
import org.apache.spark.sparkkinesis.SparkBlocks
import org.apache.spark.sql.SparkSession
import org.apache.spark.storage.StreamBlockId

/**
 * Watches, through Spark's listener bus, what a user could see in the Spark UI: the connector's prefetched
 * blocks (where they are, in memory or on disk, and whether they were removed) and its prefetch jobs.
 * Listener events arrive asynchronously: wait for what you expect. Thread-safe.
 */
final class SparkActivity extends SparkListener {
  import SparkActivity._

  private val blocks = new ConcurrentHashMap[StreamBlockId, Block]()
  private val everOnDisk = ConcurrentHashMap.newKeySet[StreamBlockId]()
  private val storers = ConcurrentHashMap.newKeySet[String]()
  private val runningPrefetchJobs = ConcurrentHashMap.newKeySet[Int]()
  private val prefetchJobsStarted = new AtomicInteger()
  private val prefetchTasks = new java.util.concurrent.ConcurrentLinkedQueue[Int]()

  override def onBlockUpdated(event: SparkListenerBlockUpdated): Unit = {
    val info = event.blockUpdatedInfo
    info.blockId match {
      case id: StreamBlockId =>
        if (info.storageLevel.isValid) {
          blocks.put(id, Block(info.blockManagerId.executorId, info.memSize, info.diskSize))
          storers.add(info.blockManagerId.executorId)
          if (info.diskSize > 0) everOnDisk.add(id)
        } else blocks.remove(id)
      case _ =>
    }
  }

  override def onJobStart(event: SparkListenerJobStart): Unit =
    if (Option(event.properties)
        .flatMap(p => Option(p.getProperty("spark.job.description")))
        .exists(_.startsWith(PrefetchJob))) {
      prefetchJobsStarted.incrementAndGet()
      prefetchTasks.add(event.stageInfos.map(_.numTasks).sum)
      runningPrefetchJobs.add(event.jobId)
    }

  override def onJobEnd(event: SparkListenerJobEnd): Unit = runningPrefetchJobs.remove(event.jobId)

  /** Prefetched blocks stored and not yet removed, and where each is. */
  def liveBlocks: Map[StreamBlockId, Block] = blocks.asScala.toMap

  /** The executors that stored prefetched blocks ("driver" in local mode). */
  def storedBy: Set[String] = storers.asScala.toSet

  /** Blocks that were written to disk at some point. */
  def blocksSpilled: Int = everOnDisk.size

  def prefetchJobsRunning: Int = runningPrefetchJobs.size
  def prefetchJobs: Int = prefetchJobsStarted.get

  /** How many tasks each prefetch job started so far had, in the order they started. */
  def prefetchJobTasks: Seq[Int] = prefetchTasks.asScala.toSeq

  /** Removes every live prefetched block, as the loss of an executor or an eviction would. */
  def removeAllBlocks(): Int = {
    val live = liveBlocks.keys.toSeq
    live.foreach(id => SparkBlocks.removeEverywhere(id.streamId, id.uniqueId))
    live.size
  }
}

object SparkActivity {
  private val PrefetchJob = "Kinesis prefetch"

  final case class Block(executorId: String, memSize: Long, diskSize: Long)

  /** A listener registered with the session's SparkContext. */
  def watch(spark: SparkSession): SparkActivity = {
    val activity = new SparkActivity
    spark.sparkContext.addSparkListener(activity)
    activity
  }

  /**
   * The connector's scan metrics (records from prefetched blocks, records read again from Kinesis), summed
   * over every batch the session ran, as the SQL tab of the Spark UI shows them per batch.
   */
  def scanMetricTotals(spark: SparkSession): Map[String, Long] = {
    val store = SparkStatus.store(spark)
    val perExecution = store.executionsList().flatMap { execution =>
      val values = store.executionMetrics(execution.executionId)
      val graph = store.planGraph(execution.executionId)
      graph.allNodes.flatMap(_.metrics).flatMap { metric =>
        values.get(metric.accumulatorId).map(v => metric.name -> v.filter(_.isDigit).toLong)
      }
    }
    perExecution.groupBy(_._1).map { case (name, values) => name -> values.map(_._2).sum }
  }
}
