// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import org.apache.spark.scheduler._
import org.apache.spark.sparkkinesis.SparkBlocks
import org.apache.spark.sql.SparkSession
import org.apache.spark.storage.StreamBlockId
import org.apache.spark.ExecutorLostFailure

/**
 * Watches, through Spark's listener bus, what a user could see in the Spark UI: the connector's prefetched
 * blocks (where they are, in memory or on disk, and whether they were removed, or lost with their
 * executor), its prefetch jobs, and the executors that came and went. Listener events arrive
 * asynchronously: wait for what you expect. Thread-safe.
 */
final class SparkActivity extends SparkListener {
  import SparkActivity._

  private val blocks = new ConcurrentHashMap[StreamBlockId, Block]()
  private val everOnDisk = ConcurrentHashMap.newKeySet[StreamBlockId]()
  private val storers = new ConcurrentHashMap[String, AtomicInteger]()
  private val added = ConcurrentHashMap.newKeySet[String]()
  private val removed = ConcurrentHashMap.newKeySet[String]()
  private val runningPrefetchJobs = ConcurrentHashMap.newKeySet[Int]()
  private val prefetchStages = ConcurrentHashMap.newKeySet[Int]()
  private val runningPrefetchTasks = new ConcurrentHashMap[Long, String]()
  private val lostPrefetchTasks = new AtomicInteger()
  private val failedPrefetchJobs = new AtomicInteger()
  private val prefetchJobsStarted = new AtomicInteger()
  private val prefetchTasks = new java.util.concurrent.ConcurrentLinkedQueue[Int]()

  override def onBlockUpdated(event: SparkListenerBlockUpdated): Unit = {
    val info = event.blockUpdatedInfo
    info.blockId match {
      case id: StreamBlockId =>
        if (info.storageLevel.isValid) {
          blocks.put(id, Block(info.blockManagerId.executorId, info.memSize, info.diskSize))
          storers.computeIfAbsent(info.blockManagerId.executorId, _ => new AtomicInteger()).incrementAndGet()
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
      event.stageIds.foreach(prefetchStages.add)
      runningPrefetchJobs.add(event.jobId)
    }

  override def onJobEnd(event: SparkListenerJobEnd): Unit =
    if (runningPrefetchJobs.remove(event.jobId) && event.jobResult != JobSucceeded) failedPrefetchJobs.incrementAndGet()

  override def onTaskStart(event: SparkListenerTaskStart): Unit =
    if (prefetchStages.contains(event.stageId))
      runningPrefetchTasks.put(event.taskInfo.taskId, event.taskInfo.executorId)

  override def onTaskEnd(event: SparkListenerTaskEnd): Unit =
    if (runningPrefetchTasks.remove(event.taskInfo.taskId) != null) event.reason match {
      case _: ExecutorLostFailure => lostPrefetchTasks.incrementAndGet()
      case _ =>
    }

  override def onExecutorAdded(event: SparkListenerExecutorAdded): Unit = added.add(event.executorId)

  override def onExecutorRemoved(event: SparkListenerExecutorRemoved): Unit = removed.add(event.executorId)

  /** An executor's blocks are gone with it; Spark tells of its block manager, not of each block. */
  override def onBlockManagerRemoved(event: SparkListenerBlockManagerRemoved): Unit =
    blocks.asScala.foreach { case (id, block) =>
      if (block.executorId == event.blockManagerId.executorId) blocks.remove(id, block)
    }

  /** Prefetched blocks stored and not yet removed, and where each is. */
  def liveBlocks: Map[StreamBlockId, Block] = blocks.asScala.toMap

  /** The executors that stored prefetched blocks ("driver" in local mode). */
  def storedBy: Set[String] = storers.keySet.asScala.toSet

  /** How many prefetched blocks each executor stored so far (a block stored again counts again). */
  def blocksStoredBy: Map[String, Int] = storers.asScala.map { case (e, n) => e -> n.get }.toMap

  /** The executors added since this listener was registered (a lost executor's replacement among them). */
  def executorsAdded: Set[String] = added.asScala.toSet

  /** The executors Spark removed (lost, killed or decommissioned) since this listener was registered. */
  def executorsRemoved: Set[String] = removed.asScala.toSet

  /** Blocks that were written to disk at some point. */
  def blocksSpilled: Int = everOnDisk.size

  def prefetchJobsRunning: Int = runningPrefetchJobs.size
  def prefetchJobs: Int = prefetchJobsStarted.get

  /** The executors running prefetch tasks now, and how many each runs. */
  def prefetchTasksRunningOn: Map[String, Int] =
    runningPrefetchTasks.values.asScala.groupBy(identity).map { case (e, tasks) => e -> tasks.size }

  /** Prefetch tasks that failed because their executor was lost (Spark runs them again elsewhere). */
  def prefetchTasksLost: Int = lostPrefetchTasks.get

  /** Prefetch jobs that failed or were cancelled (the connector runs them again). */
  def prefetchJobsFailed: Int = failedPrefetchJobs.get

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
