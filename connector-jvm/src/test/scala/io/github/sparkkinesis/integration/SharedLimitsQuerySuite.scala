// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.bench.SharedStreamReaders.{startQueries, LogCounter, SteadyWriter}
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.scalatest.funsuite.AnyFunSuite

/**
 * Several polling queries of one stream share each shard's limits (5 GetRecords calls and 2 MB a second), as
 * the synthetic Kinesis enforces them: with the default options, 2 and 3 queries (3 ask for 7.5 calls a
 * second a shard, so Kinesis turns calls down) each read every record exactly once, none is starved, the
 * throttling reaches their progress, and the log stays quiet.
 */
class SharedLimitsQuerySuite extends AnyFunSuite with SparkStreamingSuite {

  // A prefetch task per query holds a core while its shards have records, and each query's batches need one
  // too: three queries on two cores would wait on Spark's scheduler, not on Kinesis.
  override protected def sparkMaster: String = "local[4]"

  private val Shards = 2
  private val Backlog = 300L
  private val WriteSeconds = 10

  /**
   * The longest a query may still lack a record once the last one was put. Each query calls every shard
   * every 400 ms; a throttled call rests at most 5 s, and the shard's 5 calls a second leave each of three
   * queries at least one in the 5 s after its rest. Any call reads all a shard holds (up to 10,000 records,
   * here at most ~700): so a query that lacks a record 30 s after the last put has been starved.
   */
  private val StarvedAfterSeconds = 30

  /**
   * The connector's WARN lines allowed a run: one `Hit rate limit` per shard, when its throttling starts. It
   * starts anew only after a minute without throttling, longer than a run; while it goes on, the log has
   * at most a summary a minute at INFO, and DEBUG lines. (The JVM's log is shared by the queries, as they
   * share the executor, and Kinesis' limits.)
   */
  private val MaxWarnLines = Shards

  Seq(2, 3).foreach { n =>
    test(s"$n polling queries of one stream within its limits: each record once to each, none starved, a quiet log") {
      val kinesis = SyntheticKinesis.start(threads = 8)
      val stream = s"shared-$n-${java.util.UUID.randomUUID().toString.take(8)}"
      kinesis.create(StreamSpec(stream, Shards, backlogPerShard = Backlog, recordBytes = 1000, limits = true))
      val logs = new LogCounter
      val writer = new SteadyWriter(kinesis, stream, perSecond = 20 * Shards, recordBytes = 1000)
      val queries = startQueries(spark, kinesis, stream, n, Map.empty)
      try {
        Thread.sleep(WriteSeconds * 1000L)
        writer.close()
        val expected = Backlog * Shards + writer.records
        queries.foreach { case (query, read) =>
          eventually(s"every record in ${read.name}", StarvedAfterSeconds, Some(query))(read.distinct >= expected)
        }
        queries.foreach { case (query, read) =>
          assert(read.distinct == expected && read.duplicates == 0, s"${read.name}: each record exactly once")
          assert(read.rows == expected, read.name)
          query.stop()
        }
        val throttled = kinesis.callCounts.getOrElse("GetRecords throttled", 0L)
        val counted = queries.map(_._1.lastProgress.sources.head.metrics.get("numAwsRateLimitErrors").toLong)
        if (n == 3)
          assert(throttled > 0, s"3 queries at the default pace exceed 5 calls a second: ${kinesis.callCounts}")
        // The queries' progress counts only their own calls' throttling, each attempt once (the SDK retries
        // no GetRecords throttling), and shows it: at most what Kinesis answered, some of it if any.
        val byKinesis = kinesis.callCounts.collect { case (k, v) if k.endsWith("throttled") => v }.sum
        assert(counted.sum <= byKinesis, s"$counted, ${kinesis.callCounts}")
        if (throttled > 0) assert(counted.sum > 0, s"$counted, ${kinesis.callCounts}")
        assert(
          logs.warnLines <= MaxWarnLines,
          s"${logs.warnLines} WARN lines, ${logs.rateLimitWarnLines} on rate limits")
        assert(
          logs.throttlingInfoLines <= MaxWarnLines,
          s"${logs.throttlingInfoLines} lines at INFO or above on throttling: a summary comes a minute after the warning"
        )
      } finally {
        writer.close()
        queries.foreach(_._1.stop())
        logs.close()
        kinesis.close()
      }
    }
  }
}
