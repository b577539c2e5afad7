// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{CountDownLatch, TimeUnit}

import scala.collection.mutable

import io.github.sparkkinesis.prefetch.{BlockRef, SparkBlockStore}
import io.github.sparkkinesis.source.{RecordsFromPrefetchedBlocks, RecordsReadAgainFromKinesis}
import io.github.sparkkinesis.testing.{ExecutorProcesses, SparkActivity}
import org.apache.spark.sql.streaming.StreamingQuery
import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

/**
 * Executors lost mid-query on a cluster of executor JVMs ([[ClusterIntegration]]): a test kills one with
 * SIGKILL ([[ExecutorProcesses]]), and with it go the blocks prefetched there and the enhanced fan-out
 * subscriptions it held. The query reads on, every record once, in order per shard, and uses the executor
 * the worker starts in its place.
 */
class LostExecutorIntegrationSuite extends AnyFunSuite with ClusterIntegration {

  test("blocks an executor held when it died, not yet read by their batch, are read again from Kinesis", Integration) {
    val GatedQuery(stream, activity, gate, collector, query) = gatedQuery(shards = 4)
    val values = (1 to 2000).map(i => s"lost-block-$i")
    val written = mutable.ArrayBuffer(expected(stream, values, put(stream, values)): _*)
    gate.awaitHeld(query)
    awaitPrefetchingPaused(activity)
    val executors = ExecutorProcesses.running().keySet
    val lost = activity.liveBlocks.values.groupBy(_.executorId).maxBy(_._2.size)._1
    ExecutorProcesses.kill(lost)
    eventually(s"Spark to remove executor $lost")(activity.executorsRemoved.contains(lost))
    gate.release()

    // Records written from now on are prefetched on the executors left, the worker's new one among them.
    var round = 0
    def replacements = activity.executorsAdded -- executors
    eventually("blocks stored by the executor started in the lost one's place", query = Some(query)) {
      round += 1
      val more = (1 to 50).map(i => s"lost-block-after-$round-$i")
      written ++= expected(stream, more, put(stream, more))
      Thread.sleep(200)
      replacements.exists(activity.storedBy)
    }
    val rows = runUntil(collector, query, written.size)

    assert(rows.sortBy(_.seq) == written.sortBy(_.seq), "every record once")
    assert(inOrderPerShard(rows))
    val totals = SparkActivity.scanMetricTotals(spark).withDefaultValue(0L)
    val again = totals(new RecordsReadAgainFromKinesis().description())
    assert(again > 0, "the lost blocks' records read again from Kinesis")
    assert(again + totals(new RecordsFromPrefetchedBlocks().description()) == written.size, totals)
    spark.sparkContext.removeSparkListener(activity)
  }

  test("a block is served from its executor to another JVM as its bytes, and read there in place", Integration) {
    val GatedQuery(stream, activity, gate, collector, query) = gatedQuery(shards = 2)
    // Records of 200 KB: an answer of them makes a block of more than one 4 MiB chunk.
    val values = (1 to 40).map(i => s"remote-block-$i-" + "x" * (200 * 1024))
    val written = values.grouped(10).toSeq.flatMap(group => expected(stream, group, put(stream, group)))
    gate.awaitHeld(query)
    awaitPrefetchingPaused(activity)

    // The driver holds no block: each comes from an executor, as a batch task elsewhere would get it.
    val blocks = activity.liveBlocks.toSeq.map { case (id, block) =>
      BlockRef(id.streamId, id.uniqueId, block.executorId, "")
    }
    val fromBlocks = blocks.map { ref =>
      val cursor = SparkBlockStore.get(ref).getOrElse(fail(s"block ${ref.name} is gone"))
      cursor.records.map(r => (r.sequenceNumber, new String(r.data, UTF_8))).toVector
    }
    assert(fromBlocks.flatten.nonEmpty)
    fromBlocks.foreach { records =>
      val seqs = records.map(_._1)
      assert(seqs == seqs.sortBy(BigInt(_)), "a block's records in the order of their sequence numbers")
    }
    val byValue = written.map(w => w.data -> w.seq).toMap
    val served = fromBlocks.flatten
    assert(served.map(_._2).distinct.size == served.size, "no record in two blocks")
    assert(served.forall { case (seq, data) => byValue.get(data).contains(seq) }, "each as it was written")

    gate.release()
    val rows = runUntil(collector, query, written.size)
    assert(rows.sortBy(_.seq) == written.sortBy(_.seq), "every record once")
    spark.sparkContext.removeSparkListener(activity)
  }

  test("enhanced fan-out: shards whose subscriptions died with their executor are subscribed again", Integration) {
    awaitExecutors()
    val stream = newStream(shards = 4)
    val activity = SparkActivity.watch(spark)
    val collector = new BatchCollector
    val df = read(stream)(efoOnExecutors: _*)
    val query = collector.start(df, newCheckpoint())
    val written = mutable.ArrayBuffer.empty[Seen]
    var round = 0
    def writeRound(): Unit = {
      round += 1
      val values = (1 to 40).map(i => s"lost-efo-$round-$i")
      written ++= expected(stream, values, put(stream, values))
      Thread.sleep(300)
    }
    // Records are read through subscriptions on both executors before one is lost.
    eventually("records prefetched on both executors", query = Some(query)) {
      writeRound()
      activity.storedBy.size == 2 && collector.rows.nonEmpty
    }
    val lost = activity.blocksStoredBy.maxBy(_._2)._1
    val storedBefore = activity.blocksStoredBy.withDefaultValue(0)
    ExecutorProcesses.kill(lost)
    // Records keep coming while Spark finds the executor gone and the shards are subscribed to elsewhere.
    (1 to 10).foreach(_ => writeRound())
    eventually("blocks stored after the loss by the executors left", query = Some(query)) {
      writeRound()
      activity.blocksStoredBy.exists { case (executor, n) => executor != lost && n > storedBefore(executor) }
    }
    val rows = runUntil(collector, query, written.size)

    assert(rows.sortBy(_.seq) == written.sortBy(_.seq), "every record once")
    assert(inOrderPerShard(rows))
    assert(activity.executorsRemoved.contains(lost))
    spark.sparkContext.removeSparkListener(activity)
  }

  test(
    "a prefetch task whose executor dies as it reads is run again elsewhere, losing and repeating nothing",
    Integration) {
    awaitExecutors()
    val stream = newStream(shards = 4)
    val activity = SparkActivity.watch(spark)
    val values = (1 to 4000).map(i => s"lost-task-$i")
    val written = expected(stream, values, put(stream, values))
    // 50 records a call, a call each 400 ms: each prefetch task reads its shards' backlog for seconds.
    val collector = new BatchCollector
    val df = read(stream)("initialPosition" -> "trim_horizon", "shardsPerTask" -> "2", "maxRecordsPerFetch" -> "50")
    val query = collector.start(df, newCheckpoint())
    eventually("a prefetch task reading", query = Some(query))(activity.prefetchTasksRunningOn.nonEmpty)
    val lost = activity.prefetchTasksRunningOn.keys.min
    ExecutorProcesses.kill(lost)
    eventually("every record, committed", seconds = 90, query = Some(query)) {
      collector.rows.size >= written.size && query.recentProgress.map(_.numInputRows).sum >= written.size
    }
    assert(activity.prefetchTasksLost >= 1, "the task on the lost executor failed with it")
    assert(activity.prefetchJobsFailed == 0, "Spark ran the lost task again, and its job succeeded")
    val rows = runUntil(collector, query, written.size)
    assert(rows.sortBy(_.seq) == written.sortBy(_.seq), "every record once")
    assert(inOrderPerShard(rows))
    spark.sparkContext.removeSparkListener(activity)
  }

  /** A query held at its second batch by [[gatedQuery]], and what watches it. */
  private final case class GatedQuery(
      stream: String,
      activity: SparkActivity,
      gate: SinkGate,
      collector: BatchCollector,
      query: StreamingQuery)

  /**
   * A query of a new stream of `shards` shards from its start, on the cluster's two executors, past its first
   * batch (empty: nothing is written yet). The next batch waits in the sink, its range in the offset log and
   * its blocks on the executors, unread; prefetching pauses once it holds more than fetchBufferSize
   * uncommitted, so the blocks stay as they are until the gate is released.
   */
  private def gatedQuery(shards: Int): GatedQuery = {
    awaitExecutors()
    val stream = newStream(shards)
    val activity = SparkActivity.watch(spark)
    val gate = new SinkGate(batchId = 1)
    val collector = new BatchCollector
    val df = read(stream)("initialPosition" -> "trim_horizon", "shardsPerTask" -> "2", "fetchBufferSize" -> "10kb")
    val query = start(df, collector, gate)
    eventually("the first batch", query = Some(query))(collector.batches.contains(0L))
    GatedQuery(stream, activity, gate, collector, query)
  }

  /** Waits until the cluster has its two executors (a worker replaces a lost one) and Spark has them too. */
  private def awaitExecutors(): Unit =
    eventually("two executors", seconds = 90) {
      ExecutorProcesses.running().size == 2 && spark.sparkContext.statusTracker.getExecutorInfos.length == 3
    }

  private def start(df: DataFrame, collector: BatchCollector, gate: SinkGate): StreamingQuery =
    df.writeStream
      .option("checkpointLocation", newCheckpoint())
      .foreachBatch { (batch: DataFrame, id: Long) =>
        gate.pass(id)
        collector.record(batch, id)
      }
      .start()

  /**
   * Waits until no prefetch job has run for a second: the prefetcher holds more than `fetchBufferSize`
   * uncommitted and waits for a commit, so every live block is one the driver knows of, and none is added.
   */
  private def awaitPrefetchingPaused(activity: SparkActivity): Unit = {
    var jobs = -1
    eventually("prefetching paused") {
      val seen = activity.prefetchJobs
      val paused = activity.prefetchJobsRunning == 0 && seen == jobs && activity.liveBlocks.nonEmpty
      jobs = seen
      if (!paused) Thread.sleep(1000)
      paused
    }
  }

  /** Each shard's records in the order of their sequence numbers, as the batches delivered them. */
  private def inOrderPerShard(rows: Seq[Seen]): Boolean =
    rows.groupBy(_.shardId).values.forall { shard =>
      val seqs = shard.map(r => BigInt(r.seq))
      seqs == seqs.sorted
    }

  /**
   * Holds batch `batchId` in the sink, before it reads its rows, until the test releases it (two minutes at
   * most); lets the others pass.
   */
  private final class SinkGate(batchId: Long) {
    private val held = new CountDownLatch(1)
    private val released = new CountDownLatch(1)

    def pass(id: Long): Unit =
      if (id == batchId) {
        held.countDown()
        released.await(2, TimeUnit.MINUTES)
      }

    def awaitHeld(query: StreamingQuery): Unit =
      eventually("a batch held in the sink", query = Some(query))(held.getCount == 0)

    def release(): Unit = released.countDown()
  }
}
