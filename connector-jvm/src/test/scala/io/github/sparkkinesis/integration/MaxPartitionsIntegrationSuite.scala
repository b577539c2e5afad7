// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.testing.SparkActivity
import org.scalatest.funsuite.AnyFunSuite

/**
 * `maxPartitions` against the emulator, on `local[2]`: a batch read is split into that many tasks instead
 * of one per core, and a streaming query's prefetch jobs into that many tasks instead of what
 * `shardsPerTask` and the cores make (one task for six shards here); every record is read either way.
 */
class MaxPartitionsIntegrationSuite extends AnyFunSuite with SourceIntegration {

  test("a batch read has maxPartitions tasks and reads every record once", Integration) {
    val stream = newStream(shards = 6)
    val values = (1 to 120).map(i => s"v$i")
    val written = expected(stream, values, put(stream, values))
    def batch(options: (String, String)*) = batchRead(stream)(options: _*)
    assert(batch().rdd.getNumPartitions == 2, "one task per core by default")
    val split = batch("maxPartitions" -> "3")
    assert(split.rdd.getNumPartitions == 3)
    assert(seen(split.collect().toSeq).sortBy(_.seq) == written.sortBy(_.seq))
  }

  test("a streaming query's prefetch jobs have maxPartitions tasks and every record is read once", Integration) {
    val stream = newStream(shards = 6)
    val values = (1 to 120).map(i => s"v$i")
    val written = expected(stream, values, put(stream, values))
    val activity = SparkActivity.watch(spark)
    try {
      val collector = new BatchCollector
      val query =
        collector.start(read(stream)("initialPosition" -> "trim_horizon", "maxPartitions" -> "3"), newCheckpoint())
      val rows = runUntil(collector, query, values.size)
      assert(rows.sortBy(_.seq) == written.sortBy(_.seq))
      val tasks = activity.prefetchJobTasks
      assert(tasks.nonEmpty && tasks.forall(_ == 3), s"tasks of each prefetch job: $tasks")
    } finally spark.sparkContext.removeSparkListener(activity)
  }
}
