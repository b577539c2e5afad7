// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.nio.charset.StandardCharsets.UTF_8

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.errors.KinesisException
import io.github.sparkkinesis.testing.TestLog
import org.apache.spark.sql.streaming.StreamingQuery
import org.scalatest.funsuite.AnyFunSuite

/**
 * Kinesis going away while queries run: the emulator is stopped and started again on its port, with its
 * data kept on disk. Runs against the emulator only (an external endpoint cannot be stopped).
 */
class FaultInjectionIntegrationSuite extends AnyFunSuite with SourceIntegration {

  override protected def persistentEmulator: Boolean = true

  /**
   * Stops Kinesis for `seconds`, running `during` meanwhile; returns the log lines written while it was down
   * (what the connector logs once Kinesis answers again is after them).
   */
  private def outage(seconds: Int)(during: => Unit): Seq[String] = {
    assume(canStopEmulator, "the endpoint is external: it cannot be stopped")
    Thread.sleep(2500) // the emulator writes its data to disk every second
    try
      TestLog.during("outage") {
        stopEmulator()
        val started = System.nanoTime()
        during
        val left = seconds * 1000L - (System.nanoTime() - started) / 1000000
        if (left > 0) Thread.sleep(left)
      }
    finally restartEmulator()
  }

  private def connectorWarnings(lines: Seq[String], stream: String): Seq[String] =
    lines.filter(l => l.contains(" WARN ") && l.contains(stream))

  private def metrics(query: StreamingQuery): Map[String, String] =
    Option(query.lastProgress).map(_.sources.head.metrics.asScala.toMap).getOrElse(Map.empty)

  private def readThroughAnOutage(stream: String, options: (String, String)*): Unit = {
    val before = (1 to 60).map(i => s"before-$i")
    val after = (1 to 60).map(i => s"after-$i")
    val written = put(stream, before)
    val collector = new BatchCollector()
    val query = collector.start(
      read(stream)(Seq("initialPosition" -> "trim_horizon", "outageTimeout" -> "10m") ++ options: _*),
      newCheckpoint())
    eventually("the first records", query = Some(query))(collector.rows.size >= before.size)
    val lines = outage(seconds = 25) {
      Thread.sleep(20000)
      assert(query.isActive, query.exception)
      val during = metrics(query)
      assert(during.get("secondsSinceLastSuccessfulCall").exists(_.toLong >= 10), during)
      assert(!during.contains("avgMsBehindLatest"), s"no lag is shown for a stream that cannot be reached: $during")
    }
    val all = written ++ put(stream, after)
    val rows = runUntil(collector, query, before.size + after.size)
    assert(rows.sortBy(_.seq) == expected(stream, before ++ after, all).sortBy(_.seq), "each record exactly once")

    val warnings = connectorWarnings(lines, stream)
    info(
      s"${lines.count(_.contains(" WARN "))} WARN lines in the log in 25 s of outage; the connector's: " +
        warnings.mkString("\n"))
    assert(warnings.size == 1, warnings.mkString("\n"))
    assert(
      warnings.head.contains(s"calls to Kinesis at $endpoint") && warnings.head.contains(
        s"stream '$stream' fail since"))
    eventually("the end of the outage to be logged") {
      TestLog.text().contains(s"answers again for stream '$stream'")
    }
  }

  test("polling: Kinesis gone for 25 s; the query says so, then reads every record exactly once", Integration) {
    readThroughAnOutage(newStream(shards = 2))
  }

  test(
    "enhanced fan-out: Kinesis gone for 25 s; the query says so, then reads every record exactly once",
    Integration) {
    readThroughAnOutage(newStream(shards = 2), "consumerMode" -> "efo", "consumerName" -> "fault-injection")
  }

  test("a graceful stop kills no prefetch task and logs nothing above INFO of its own", Integration) {
    val stream = newStream(shards = 2)
    put(stream, (1 to 20).map(i => s"r$i"))
    val collector = new BatchCollector()
    val query = collector.start(read(stream)("initialPosition" -> "trim_horizon"), newCheckpoint())
    eventually("the records", query = Some(query))(collector.rows.size >= 20)
    Thread.sleep(3000) // the prefetcher polls on, caught up
    val lines = TestLog.during("stop")(query.stop())
    val loud = lines.filter(l => l.contains(" WARN ") || l.contains(" ERROR "))
    // Spark 4 warns of its own accord when it stops any streaming query between two batches: the query's
    // job group has no job to cancel then.
    val ours = loud.filterNot(_.contains("Failed to cancel job group"))
    assert(ours.isEmpty, ours.mkString("\n"))
    assert(!lines.exists(_.contains("TaskKilled")), lines.filter(_.contains("TaskKilled")).mkString("\n"))
  }

  test("the sink: rows written while Kinesis is gone arrive, each once, when it is back", Integration) {
    val stream = newStream(shards = 1)
    val (input, query) = streamingWrite(sinkOptions(Some(stream)))
    try {
      input.addData((1 to 20).map(i => (s"k$i", s"before-$i")))
      query.processAllAvailable()
      val lines = outage(seconds = 15) {
        input.addData((1 to 20).map(i => (s"k$i", s"during-$i")))
        Thread.sleep(10000)
        assert(query.isActive, query.exception)
      }
      query.processAllAvailable()
      val back = readBack(stream)
      assert(back.sorted == ((1 to 20).map(i => s"before-$i") ++ (1 to 20).map(i => s"during-$i")).sorted)
      assert(
        lines.exists(l => l.contains(" WARN ") && l.contains(s"stream '$stream' fail since")),
        lines.mkString("\n"))
    } finally query.stop()
  }

  test("an outage longer than outageTimeout fails the query with KINESIS_UNAVAILABLE", Integration) {
    val stream = newStream(shards = 1)
    put(stream, Seq("one"))
    val collector = new BatchCollector()
    val query =
      collector.start(read(stream)("initialPosition" -> "trim_horizon", "outageTimeout" -> "8s"), newCheckpoint())
    eventually("the record", query = Some(query))(collector.rows.nonEmpty)
    outage(seconds = 25) {
      eventually("the query to fail", seconds = 25)(query.exception.isDefined)
    }
    val cause = kinesisCause(query.exception.get)
    assert(cause.exists(_.getCondition == "KINESIS_UNAVAILABLE"), query.exception.get)
    assert(cause.get.getMessage.contains(s"to read stream '$stream' has failed for"), cause.get.getMessage)
    assert(cause.get.getMessage.contains(endpoint), cause.get.getMessage)
  }

  test("a checkpoint of a query that read another stream fails the restart, naming both streams", Integration) {
    val stream = newStream(shards = 1)
    val other = newStream(shards = 1)
    put(stream, Seq("one"))
    put(other, Seq("elsewhere"))
    val checkpoint = newCheckpoint()
    val first = new BatchCollector()
    runUntil(first, first.start(read(stream)("initialPosition" -> "trim_horizon"), checkpoint), 1)
    val restarted = new BatchCollector()
    val query = restarted.start(read(other)("initialPosition" -> "trim_horizon"), checkpoint)
    eventually("the query to fail")(query.exception.isDefined)
    val cause = kinesisCause(query.exception.get)
    assert(cause.exists(_.getCondition == "KINESIS_CHECKPOINT_OTHER_STREAMS"), query.exception.get)
    assert(cause.get.getMessage.contains(s"reads stream '$other', not stream '$stream'"), cause.get.getMessage)
    assert(restarted.rows.isEmpty, "nothing of the other stream is read")
  }

  private def kinesisCause(e: Throwable): Option[KinesisException] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst { case k: KinesisException => k }

  /** Every record's data, read back with the AWS API from the start of the stream's one shard. */
  private def readBack(stream: String): Seq[String] = {
    val shard = admin.listShards(stream, 100).head.shardId
    val iterator = admin.getShardIterator(stream, shard, io.github.sparkkinesis.client.IteratorStart.TrimHorizon)
    admin.getRecords(stream, shard, iterator, 10000).records.map(r => new String(r.data, UTF_8))
  }
}
