// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.bench.SharedStreamReaders.{startQueries, LogCounter, ReadLog, SteadyWriter}
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.apache.spark.sql.streaming.StreamingQuery
import org.scalatest.funsuite.AnyFunSuite

/**
 * Several polling queries of one stream share each shard's limits (5 GetRecords calls and 2 MB a second), as
 * the synthetic Kinesis enforces them: with the default options, 2 and 3 queries (3 ask for 7.5 calls a
 * second a shard, so Kinesis turns calls down) each read every record exactly once, none is starved, the
 * throttling reaches their progress, and the log stays quiet. An enhanced fan-out query beside two of them
 * reads through its own subscriptions, and neither it nor they are throttled.
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
      run(polling = n, efo = false)
    }
  }

  test("an enhanced fan-out query beside 2 polling ones takes nothing from their share of the limits") {
    run(polling = 2, efo = true)
  }

  /**
   * `polling` queries with the default options, and with `efo` one more through a consumer of its own, read a
   * stream being written: each reads every record once, none starved, throttling counted, the log quiet.
   */
  private def run(polling: Int, efo: Boolean): Unit = {
    val kinesis = SyntheticKinesis.start(threads = 8)
    val stream = s"shared-$polling-${java.util.UUID.randomUUID().toString.take(8)}"
    kinesis.create(StreamSpec(stream, Shards, backlogPerShard = Backlog, recordBytes = 1000, limits = true))
    val logs = new LogCounter
    val writer = new SteadyWriter(kinesis, stream, perSecond = 20 * Shards, recordBytes = 1000)
    val queries = startQueries(spark, kinesis, stream, polling, Map.empty) ++
      (if (efo) startQueries(spark, kinesis, stream, 1, EfoOptions, first = polling + 1) else Nil)
    try {
      Thread.sleep(WriteSeconds * 1000L)
      // Three queries at the default pace ask for 7.5 calls a second a shard while records come: the writing
      // goes on until Kinesis has turned one down (on a busy machine the queries' pace may lag behind).
      if (polling == 3)
        eventually("Kinesis turning down a call of 3 queries", 60)(
          kinesis.callCounts.getOrElse("GetRecords throttled", 0L) > 0)
      writer.close()
      val expected = Backlog * Shards + writer.records
      queries.foreach { case (query, read) =>
        try eventually(s"every record in ${read.name}", StarvedAfterSeconds, Some(query))(read.distinct >= expected)
        catch {
          case e: AssertionError => throw new AssertionError(s"${e.getMessage}\n${state(kinesis, stream, queries)}", e)
        }
      }
      queries.foreach { case (_, read) =>
        assert(read.distinct == expected && read.duplicates == 0, s"${read.name}: each record exactly once")
        assert(read.rows == expected, read.name)
      }
      val throttled = kinesis.callCounts.getOrElse("GetRecords throttled", 0L)
      def counted = queries.map { case (query, _) =>
        Option(query.lastProgress).map(_.sources.head.metrics.get("numAwsRateLimitErrors").toLong).getOrElse(0L)
      }
      // A prefetch task reports the throttling it met when it hands over (within maxFetchDuration), and the
      // next progress shows it.
      if (throttled > 0) eventually("the throttling in the queries' progress", 30)(counted.sum > 0)
      queries.foreach(_._1.stop())
      if (efo) {
        // Its records came pushed, under the consumer's own 2 MB a second a shard: no GetRecords of its own
        // (a closed shard is polled, and none is closed here), nothing throttled, the polling queries' pace kept.
        assert(kinesis.callCounts.getOrElse("SubscribeToShard", 0L) >= Shards, kinesis.callCounts)
        assert(counted.last == 0, s"the enhanced fan-out query was throttled: $counted")
        assert(throttled == 0, s"2 polling queries keep within 5 calls a second: ${kinesis.callCounts}")
      }
      // The queries' progress counts only their own calls' throttling, each attempt once (the SDK retries
      // no GetRecords throttling), and shows it: at most what Kinesis answered, some of it if any.
      val byKinesis = kinesis.callCounts.collect { case (k, v) if k.endsWith("throttled") => v }.sum
      assert(counted.sum <= byKinesis, s"$counted, ${kinesis.callCounts}")
      if (throttled > 0) assert(counted.sum > 0, s"$counted, ${kinesis.callCounts}")
      assert(logs.warnLines <= MaxWarnLines, s"${logs.warnLines} WARN lines, ${logs.rateLimitWarnLines} on rate limits")
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

  /** What each query read of each shard against what the shard holds, and where each query stands. */
  private def state(kinesis: SyntheticKinesis, stream: String, queries: Seq[(StreamingQuery, ReadLog)]): String = {
    val ends = kinesis.stream(stream).shards.map(s => s.id -> s.end).toMap
    val calls = kinesis.callCounts.toSeq.sorted.mkString(", ")
    val perQuery = queries.map { case (query, read) =>
      val progress = query.recentProgress.takeRight(3).map { p =>
        val source = p.sources.head
        s"    batch ${p.batchId} at ${p.timestamp}: ${p.numInputRows} rows, end ${source.endOffset}, metrics ${source.metrics}"
      }
      val summary = s"  ${read.name}: ${read.distinct} distinct of ${ends.values.sum}, by shard " +
        s"${read.distinctByShard.toSeq.sorted}, active ${query.isActive}, status ${query.status.json.replaceAll("\\s+", " ")}"
      (summary +: progress).mkString("\n")
    }
    (s"shards hold ${ends.toSeq.sorted}; calls $calls" +: perQuery).mkString("\n")
  }

  private val EfoOptions = Map("consumerMode" -> "efo", "consumerName" -> "shared-efo")
}
