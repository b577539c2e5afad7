// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.config.ByteSizes
import io.github.sparkkinesis.source.{RecordsFromPrefetchedBlocks, RecordsReadAgainFromKinesis}
import io.github.sparkkinesis.testing.SparkActivity
import org.scalatest.funsuite.AnyFunSuite

/**
 * A burst of data on a session whose executors have almost no storage memory: the prefetched blocks must go
 * to disk instead of failing or being dropped, and fetchBufferSize must hold prefetching back.
 */
class SpillIntegrationSuite extends AnyFunSuite with SourceIntegration {

  // About 100 KB for execution and storage together (Spark's share of the heap above the 300 MB it
  // reserves): less than one prefetched block of 100 records of 1 KB, so Spark's memory store cannot hold
  // any block and every one is written to disk.
  override protected def sparkSettings: Map[String, String] = {
    val usable = Runtime.getRuntime.maxMemory - 300L * 1024 * 1024
    Map("spark.memory.fraction" -> (100.0 * 1024 / usable).toString)
  }

  test("a burst larger than fetchBufferSize spills to disk and loses nothing", Integration) {
    val stream = newStream(shards = 2)
    val payload = "x" * 1000
    val values = (1 to 3000).map(i => f"burst-$i%05d-$payload")
    val results = put(stream, values)
    val activity = SparkActivity.watch(spark)
    val bufferBytes = 512L * 1024
    // One prefetch job reads at most two calls of 100 records per shard: 400 KB over both shards.
    val perJob = 2L * 2 * 100 * (payload.length + 11)
    val collector = new BatchCollector
    val df = read(stream)(
      "initialPosition" -> "trim_horizon",
      "fetchBufferSize" -> ByteSizes.format(bufferBytes),
      "maxRecordsPerFetch" -> "100",
      "maxFetchDuration" -> "500ms")
    val query = collector.start(df, newCheckpoint())
    val rows = runUntil(collector, query, values.size)
    assert(rows.sortBy(_.seq) == expected(stream, values, results).sortBy(_.seq))
    assert(activity.blocksSpilled > 0, "prefetched blocks went to disk")
    // Every record came from its block, read back from disk: none was read from Kinesis again.
    val totals = SparkActivity.scanMetricTotals(spark).withDefaultValue(0L)
    assert(totals(new RecordsFromPrefetchedBlocks().description()) == values.size)
    assert(totals(new RecordsReadAgainFromKinesis().description()) == 0)
    val buffered = query.recentProgress.map(_.sources.head.metrics.get("totalPrefetchedBytes").toLong)
    assert(buffered.max <= bufferBytes + perJob, s"prefetched and uncommitted bytes: ${buffered.mkString(",")}")
    assert(buffered.count(_ > 0) > 1, "the burst took several rounds of prefetching")
    eventually("every prefetched block removed")(activity.liveBlocks.isEmpty)
    spark.sparkContext.removeSparkListener(activity)
  }
}
