// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.source.{RecordsFromPrefetchedBlocks, RecordsReadAgainFromKinesis}
import io.github.sparkkinesis.testing.SparkActivity
import org.scalatest.funsuite.AnyFunSuite

/**
 * Reading on a cluster of executor JVMs ([[ClusterIntegration]]) that all stay up: blocks prefetched on
 * executors are read from there. [[LostExecutorIntegrationSuite]] loses executors.
 */
class ClusterIntegrationSuite extends AnyFunSuite with ClusterIntegration {

  test("blocks prefetched on executors are read by the batches, whole and cut by limits", Integration) {
    val stream = newStream(shards = 4)
    val values = (1 to 2000).map(i => s"cluster-$i")
    val results = put(stream, values)
    val activity = SparkActivity.watch(spark)
    val collector = new BatchCollector
    // Two shards per task: each prefetch job has two tasks, one per executor. The trigger limit makes the
    // driver cut batches inside blocks, which it reads from the executor holding them.
    val df = read(stream)("initialPosition" -> "trim_horizon", "shardsPerTask" -> "2", "maxRecordsPerTrigger" -> "700")
    val query = collector.start(df, newCheckpoint())
    val rows = runUntil(collector, query, values.size)
    assert(rows.sortBy(_.seq) == expected(stream, values, results).sortBy(_.seq))
    assert(collector.batches.values.forall(_.size <= 700))
    val totals = SparkActivity.scanMetricTotals(spark).withDefaultValue(0L)
    assert(totals(new RecordsFromPrefetchedBlocks().description()) == values.size)
    assert(totals(new RecordsReadAgainFromKinesis().description()) == 0)
    assert(activity.storedBy.nonEmpty && !activity.storedBy.contains("driver"), activity.storedBy)
    eventually("every prefetched block removed")(activity.liveBlocks.isEmpty)
    spark.sparkContext.removeSparkListener(activity)
  }

  test("enhanced fan-out on executors: records written while the query runs arrive once each", Integration) {
    val stream = newStream(shards = 4)
    val collector = new BatchCollector
    val df = read(stream)(efoOnExecutors: _*)
    val query = collector.start(df, newCheckpoint())
    val written = (1 to 10).flatMap { round =>
      val values = (1 to 40).map(i => s"efo-$round-$i")
      val results = put(stream, values)
      Thread.sleep(500)
      expected(stream, values, results)
    }
    val rows = runUntil(collector, query, written.size)
    assert(rows.sortBy(_.seq) == written.sortBy(_.seq))
  }
}
