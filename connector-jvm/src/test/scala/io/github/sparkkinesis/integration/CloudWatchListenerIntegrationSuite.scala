// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.io.File
import java.time.Instant

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.cloudwatch.{CloudWatchMetricsListener, CloudWatchPublishing, ProgressFigures}
import io.github.sparkkinesis.testing.{CloudWatchServer, ServerProcess, TestLog}
import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryProgress}
import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

/**
 * The CloudWatch metrics listener in a session, enabled by the Spark configuration alone, publishing to
 * CloudWatch as moto's server emulates it on loopback: what CloudWatch then holds is what the query's
 * progresses said; and while CloudWatch is out of reach or stops answering, the query reads every record on
 * time, the data beyond the listener's queue dropped and counted.
 */
class CloudWatchListenerIntegrationSuite extends AnyFunSuite with SourceIntegration {

  private val root = new File(sys.props.getOrElse("kinesis.test.root", "."))
  private val cloudWatch = new CloudWatchServer(root)
  private val namespace = "SparkKinesisTests"

  private def listenerSettings(endpoint: String, maxQueued: Int): Map[String, String] = Map(
    "namespace" -> namespace,
    "region" -> cloudWatch.region,
    "endpoint" -> endpoint,
    "awsAccessKey" -> "AKIDCLOUDWATCHTESTS",
    "awsSecretKey" -> "cloudwatch-tests-secret",
    "maxQueuedData" -> maxQueued.toString
  )

  override protected def sparkSettings: Map[String, String] =
    Map(
      "spark.sql.streaming.streamingQueryListeners" -> classOf[CloudWatchMetricsListener].getName,
      // An idle query reports a progress every second, not every ten.
      "spark.sql.streaming.noDataProgressEventInterval" -> "1s"
    ) ++ listenerSettings(cloudWatch.endpoint, 1000).map { case (k, v) => s"spark.kinesis.cloudwatch.$k" -> v }

  override protected def beforeAll(): Unit = {
    cloudWatch.start()
    super.beforeAll()
  }

  override protected def afterAll(): Unit =
    try super.afterAll()
    finally cloudWatch.stop()

  private def listeners = CloudWatchMetricsListener.on(spark.streams.listListeners())

  private def start(df: DataFrame, name: String, collector: BatchCollector): StreamingQuery =
    df.writeStream
      .queryName(name)
      .option("checkpointLocation", newCheckpoint())
      .foreachBatch((batch: DataFrame, id: Long) => collector.record(batch, id))
      .start()

  /** The progresses of `query` with a Kinesis source, and that source's metrics. */
  private def kinesisProgresses(query: StreamingQuery): Seq[(StreamingQueryProgress, Map[String, String])] =
    query.recentProgress.toSeq.flatMap { p =>
      p.sources.find(_.description.startsWith("KinesisV2[")).map(s => p -> s.metrics.asScala.toMap)
    }

  /**
   * Writes rounds `rounds` of 50 records and waits for each to be read (each makes a batch, and so a
   * progress: an idle query reports none, from Spark 3.5 on); returns every record read so far.
   */
  private def readRounds(stream: String, query: StreamingQuery, collector: BatchCollector, rounds: Range): Seq[Seen] = {
    rounds.foreach { round =>
      put(stream, (1 to 50).map(i => s"round-$round-$i"))
      // The rows reach the collector before their batch's progress is reported: wait for both.
      eventually(s"round $round read and reported", 60, Some(query)) {
        collector.rows.size >= round * 50 && query.recentProgress.map(_.numInputRows).sum >= round * 50
      }
    }
    seen(collector.rows)
  }

  /** Every batch with records ran in well under the time the listener's CloudWatch calls could take. */
  private def assertOnTime(query: StreamingQuery): Unit = {
    val slow = query.recentProgress.filter(p => p.numInputRows > 0 && p.durationMs.get("triggerExecution") > 5000)
    assert(slow.isEmpty, s"batches slower than 5 s: ${slow.map(p => p.batchId -> p.durationMs).mkString(", ")}")
  }

  test("Spark makes the listener from the configuration; CloudWatch holds what every progress said", Integration) {
    assert(listeners.size == 1, spark.streams.listListeners().toSeq)
    val stream = newStream(shards = 2)
    val collector = new BatchCollector
    val query = start(read(stream)("initialPosition" -> "trim_horizon"), "cw-orders", collector)
    val rows = readRounds(stream, query, collector, 1 to 3)
    assert(rows.map(_.data).toSet == (1 to 3).flatMap(r => (1 to 50).map(i => s"round-$r-$i")).toSet)
    // Before the query stops: Spark's listener bus drops the progresses of a stopped query not yet delivered.
    val progresses = kinesisProgresses(query)
    val figures = progresses.flatMap(_._2.keys).toSet
    assert(figures.contains("maxMsBehindLatest") && figures.contains("numAwsRateLimitErrors"), figures)
    assert(
      figures.forall(ProgressFigures.Units.contains),
      s"figures with no unit: ${figures -- ProgressFigures.Units.keySet}")
    // moto keeps timestamps to the second: a second around the query's progresses, which are its only ones.
    val instants = progresses.map(p => Instant.parse(p._1.timestamp).toEpochMilli)
    val dimensions = Seq("Query" -> "cw-orders", "Stream" -> stream)
    def mismatches() = figures.toSeq.sorted.flatMap { name =>
      val values = progresses.flatMap(_._2.get(name)).map(_.toDouble)
      val held = cloudWatch.statistics(namespace, name, dimensions, instants.min - 1000, instants.max + 1000)
      val expected = (values.size.toLong, Some(values.max), Some(values.min))
      if ((held.count, held.max, held.min) == expected) None else Some(s"$name: held $held, progresses $expected")
    }
    try eventually("every progress's figures in CloudWatch", 30)(mismatches().isEmpty)
    catch { case e: AssertionError => fail(s"${e.getMessage}: ${mismatches().mkString("; ")}") }
    figures.foreach { name =>
      val held = cloudWatch.statistics(namespace, name, dimensions, instants.min - 1000, instants.max + 1000)
      assert(held.units == Set(ProgressFigures.Units(name)), name)
    }
    query.stop()
    assert(cloudWatch.metrics(namespace) == figures.map(_ -> dimensions.toMap))
    assert(listeners.head.dropped == 0)
  }

  test(
    "an idle query's figures go on to CloudWatch: the progress Spark makes while idle hands no listener",
    Integration) {
    val stream = newStream(shards = 1)
    val collector = new BatchCollector
    val query = start(read(stream)("initialPosition" -> "trim_horizon"), "cw-idle", collector)
    readRounds(stream, query, collector, 1 to 1)
    val lastBatch = Instant.parse(kinesisProgresses(query).filter(_._1.numInputRows > 0).last._1.timestamp)
    val dimensions = Seq("Query" -> "cw-idle", "Stream" -> stream)
    // An idle progress every second (noDataProgressEventInterval), none of them given to a listener.
    def afterLastBatch(metric: String) =
      cloudWatch.statistics(
        namespace,
        metric,
        dimensions,
        lastBatch.toEpochMilli + 1000,
        System.currentTimeMillis() + 60000)
    eventually("idle progresses in CloudWatch", 30, Some(query))(afterLastBatch("numStreams").count >= 3)
    assert(afterLastBatch("secondsSinceLastSuccessfulCall").count >= 3)
    assert(collector.rows.size == 50, "no record came meanwhile")
    query.stop()
  }

  test(
    "CloudWatch out of reach: the query reads every record on time; the data beyond the queue are dropped, counted",
    Integration) {
    val closedPort = ServerProcess.freePort()
    val listener = CloudWatchPublishing.addTo(spark, listenerSettings(s"http://127.0.0.1:$closedPort", 20).asJava)
    assert(listeners == Seq(listener), "the listener added replaces the configuration's")
    val stream = newStream(shards = 1)
    val collector = new BatchCollector
    var rows = Seq.empty[Seen]
    var query: StreamingQuery = null
    val logged = TestLog.during("CloudWatch out of reach") {
      query = start(read(stream)("initialPosition" -> "trim_horizon"), "cw-unreachable", collector)
      rows = readRounds(stream, query, collector, 1 to 3)
      eventually("the drop", 30, Some(query))(listener.dropped > 0)
      query.stop()
    }
    assert(rows.size == 150 && rows.map(_.data).toSet.size == 150)
    assertOnTime(query)
    val warnings = logged.filter(_.contains("Kinesis metrics are not reaching CloudWatch"))
    assert(warnings.size == 1, warnings.mkString("\n"))
    assert(warnings.head.contains(s"127.0.0.1:$closedPort") && warnings.head.contains("could not be reached"))
    assert(!logged.exists(_.contains("cloudwatch-tests-secret")))
  }

  test("CloudWatch stops answering mid-run: the query goes on, every record read; the drop is counted", Integration) {
    val listener = CloudWatchPublishing.addTo(spark, listenerSettings(cloudWatch.endpoint, 24).asJava)
    val stream = newStream(shards = 1)
    val collector = new BatchCollector
    val query = start(read(stream)("initialPosition" -> "trim_horizon"), "cw-outage", collector)
    readRounds(stream, query, collector, 1 to 1)
    eventually("data in CloudWatch", 30, Some(query))(listener.publisher.sent > 0)
    assert(listener.dropped == 0)
    cloudWatch.stop()
    // Four batches' progresses, 12 data each, and a queue of 24.
    val rows = readRounds(stream, query, collector, 2 to 5)
    eventually("the drop", 30, Some(query))(listener.dropped > 0)
    query.stop()
    assert(rows.size == 250 && rows.map(_.data).toSet.size == 250)
    assertOnTime(query)
  }
}
