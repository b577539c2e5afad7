// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.PutRecord
import io.github.sparkkinesis.offsets.SequenceNumbers
import io.github.sparkkinesis.source.{RecordsFromPrefetchedBlocks, RecordsReadAgainFromKinesis}
import io.github.sparkkinesis.testing.SparkActivity
import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

/**
 * The prefetch path against the emulator: data prefetched into the BlockManager in the background and read
 * from there; restarts and lost blocks that must not change what a batch holds; and low latency.
 */
class PrefetchIntegrationSuite extends AnyFunSuite with SourceIntegration {

  private val fromBlocks = new RecordsFromPrefetchedBlocks().description()
  private val readAgain = new RecordsReadAgainFromKinesis().description()

  private def scanTotals(): Map[String, Long] = SparkActivity.scanMetricTotals(spark).withDefaultValue(0L)

  /** For each partition key, the sequence numbers in the order the sink received them must increase. */
  private def assertOrderPerKey(rows: Seq[Seen]): Unit =
    rows.groupBy(_.partitionKey).foreach { case (key, ofKey) =>
      ofKey.map(_.seq).sliding(2).foreach {
        case Seq(a, b) => assert(SequenceNumbers.compare(a, b) < 0, s"records of $key arrived out of order")
        case _ =>
      }
    }

  test("a steady stream arrives exactly once, in order per key, read from the prefetched blocks", Integration) {
    val stream = newStream(shards = 2)
    val before = scanTotals()
    val collector = new BatchCollector
    val query = collector.start(read(stream)("initialPosition" -> "trim_horizon"), newCheckpoint())
    val written = (1 to 20).flatMap { round =>
      val values = (1 to 50).map(i => s"steady-$round-$i")
      val results = put(stream, values)
      Thread.sleep(150)
      expected(stream, values, results)
    }
    val rows = runUntil(collector, query, written.size)
    assert(rows.sortBy(_.seq) == written.sortBy(_.seq))
    assertOrderPerKey(rows)
    val totals = scanTotals()
    assert(totals(fromBlocks) - before(fromBlocks) == written.size, "every record came from a prefetched block")
    assert(totals(readAgain) == before(readAgain), "no record was read from Kinesis a second time")
    assert(query.lastProgress.sources.head.metrics.containsKey("totalPrefetchedBytes"))
  }

  test("a query stopped while a prefetch job runs leaves no block behind and restarts exactly", Integration) {
    val stream = newStream(shards = 2)
    val values = (1 to 1200).map(i => s"restart-$i")
    val results = put(stream, values)
    val checkpoint = newCheckpoint()
    val activity = SparkActivity.watch(spark)
    // Slow prefetching (50 records per call, five calls a second per shard at most, handed over every
    // second) keeps a job running with records it has read but not yet handed over when the query stops.
    val slow = Seq(
      "initialPosition" -> "trim_horizon",
      "maxRecordsPerFetch" -> "50",
      "maxFetchDuration" -> "1s",
      "minFetchPeriod" -> "200ms")
    val first = new BatchCollector
    val query = first.start(read(stream)(slow: _*), checkpoint)
    eventually("a first batch with rows, and the next prefetch job running", query = Some(query)) {
      first.rows.nonEmpty && activity.prefetchJobsRunning > 0
    }
    query.stop()
    eventually("every prefetched block removed")(activity.liveBlocks.isEmpty)
    assert(first.rows.size < values.size, "the query stopped before it read everything")

    val second = new BatchCollector
    val restarted = second.start(read(stream)("initialPosition" -> "trim_horizon"), checkpoint)
    def delivered = first.batches ++ second.batches
    eventually("all rows", query = Some(restarted))(delivered.values.map(_.size).sum >= values.size)
    restarted.stop()
    val all = seen(delivered.toSeq.sortBy(_._1).flatMap(_._2))
    assert(all.sortBy(_.seq) == expected(stream, values, results).sortBy(_.seq))
    assertOrderPerKey(all)
    eventually("every prefetched block removed")(activity.liveBlocks.isEmpty)
    spark.sparkContext.removeSparkListener(activity)
  }

  test("blocks lost before their batch runs are read again from Kinesis: the batch is the same", Integration) {
    val stream = newStream(shards = 2)
    val firstWave = (1 to 100).map(i => s"first-$i")
    val firstResults = put(stream, firstWave)
    val secondWave = (1 to 300).map(i => s"second-$i")
    val secondResults = new ConcurrentLinkedQueue[Seen]()
    val activity = SparkActivity.watch(spark)
    val before = scanTotals()
    @volatile var removed = 0
    val collector = new BatchCollector
    val query = read(stream)("initialPosition" -> "trim_horizon").writeStream
      .option("checkpointLocation", newCheckpoint())
      .foreachBatch { (batch: DataFrame, id: Long) =>
        collector.record(batch, id)
        if (removed == 0 && collector.rows.nonEmpty) {
          // While this batch runs, the second wave is prefetched for the next one; then its blocks are lost.
          val stored = activity.liveBlocks.keySet
          secondResults.addAll(expected(stream, secondWave, put(stream, secondWave)).asJava)
          eventually("the second wave prefetched")(activity.liveBlocks.keySet.diff(stored).nonEmpty)
          removed = activity.removeAllBlocks()
        }
      }
      .start()
    val total = firstWave.size + secondWave.size
    eventually(s"$total rows", query = Some(query))(collector.rows.size >= total)
    query.stop()
    assert(removed > 0)
    val rows = seen(collector.rows)
    val written = expected(stream, firstWave, firstResults) ++ secondResults.asScala
    assert(rows.sortBy(_.seq) == written.sortBy(_.seq))
    assertOrderPerKey(rows)
    assert(scanTotals()(readAgain) > before(readAgain), "the lost blocks' records were read from Kinesis")
    spark.sparkContext.removeSparkListener(activity)
  }

  test("low-latency settings deliver each record to the sink once, and how soon is reported", Integration) {
    val stream = newStream(shards = 2)
    val arrivals = new ConcurrentLinkedQueue[Long]()
    val query = read(stream)("maxFetchDuration" -> "200ms", "minFetchPeriod" -> "210ms")
      .selectExpr("CAST(data AS STRING) AS sent")
      .writeStream
      .option("checkpointLocation", newCheckpoint())
      .foreachBatch { (batch: DataFrame, _: Long) =>
        val now = System.currentTimeMillis()
        batch.collect().foreach(row => arrivals.add(now - row.getString(0).toLong))
      }
      .start()
    eventually("the query's first batch", query = Some(query))(query.lastProgress != null)
    val count = 40
    (1 to count).foreach { i =>
      val sent = System.currentTimeMillis().toString
      admin.putRecords(stream, Seq(PutRecord(s"key-$i", sent.getBytes(UTF_8))))
      Thread.sleep(100)
    }
    eventually(s"$count records", query = Some(query))(arrivals.size >= count)
    query.stop()
    val latencies = arrivals.asScala.toSeq.sorted
    val median = latencies(latencies.size / 2)
    // How soon (the goal: well under a second by the median) is ReadBenchmark's to measure and judge, on a
    // machine nothing else shares (dev/bench read; docs/performance.md). Asserted here, it failed when the
    // test shared two cores with dev/test's other job (a median of 1,345 ms while another line compiled).
    info(s"PutRecord to sink, ms: median $median, max ${latencies.last} (all: ${latencies.mkString(",")})")
    assert(latencies.size == count, s"each of the $count records once: ${latencies.size} arrived")
  }
}
