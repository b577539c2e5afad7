// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.streaming.{StreamingQuery, Trigger}
import org.scalatest.funsuite.AnyFunSuite

/**
 * The source's metrics in Spark's metric system, against the emulator, exported as a user configures it:
 * the Prometheus servlet of the UI and the CSV sink. Each query triggers once (a trigger interval of an
 * hour), so its one progress and its gauges come from the same trigger.
 */
class MetricsSystemIntegrationSuite extends AnyFunSuite with SourceIntegration {

  private lazy val csvDir: File = Files.createTempDirectory("kinesis-metrics-csv").toFile
  private lazy val uiPort: Int = io.github.sparkkinesis.testing.EmulatorProcess.freePort()

  override protected def sparkSettings: Map[String, String] = Map(
    "spark.ui.enabled" -> "true",
    "spark.ui.port" -> uiPort.toString,
    "spark.metrics.namespace" -> "suite",
    "spark.metrics.conf.*.sink.prometheusServlet.class" -> "org.apache.spark.metrics.sink.PrometheusServlet",
    "spark.metrics.conf.*.sink.prometheusServlet.path" -> "/metrics/prometheus",
    "spark.metrics.conf.*.sink.csv.class" -> "org.apache.spark.metrics.sink.CsvSink",
    "spark.metrics.conf.*.sink.csv.directory" -> csvDir.getPath,
    "spark.metrics.conf.*.sink.csv.period" -> "1",
    "spark.metrics.conf.*.sink.csv.unit" -> "seconds",
    "spark.sql.streaming.metricsEnabled" -> "true"
  )

  /** The gauges the Prometheus servlet shows, by name, their values as it prints them. */
  private def prometheus(): Map[String, String] = {
    val text = scala.io.Source.fromURL(s"http://127.0.0.1:$uiPort/metrics/prometheus")
    try
      text
        .getLines()
        .collect {
          case line if line.contains("""_Value{type="gauges"}""") =>
            val (name, value) = line.splitAt(line.lastIndexOf(' '))
            name.stripSuffix("""{type="gauges"}""") -> value.trim
        }
        .toMap
    finally text.close()
  }

  /** Prometheus' name of a gauge of the connector's: the servlet makes every character but letters and digits `_`. */
  private def prometheusName(query: String, stream: String, gauge: String): String =
    s"metrics_suite_driver_kinesis.$query.$stream.${gauge}_Value".replaceAll("[^a-zA-Z0-9]", "_")

  /** The last value the CSV sink wrote of a gauge of the connector's, if it wrote one. */
  private def csv(query: String, stream: String, gauge: String): Option[String] = {
    val file = new File(csvDir, s"suite.driver.kinesis.$query.$stream.$gauge.csv")
    if (!file.exists()) None
    else Files.readAllLines(file.toPath).asScala.drop(1).lastOption.map(_.split(',').last)
  }

  private def startOnce(stream: String, name: Option[String], checkpoint: String): StreamingQuery = {
    val writer = read(stream)("initialPosition" -> "trim_horizon").writeStream
      .format("noop")
      .option("checkpointLocation", checkpoint)
      .trigger(Trigger.ProcessingTime("1 hour"))
    name.fold(writer)(writer.queryName).start()
  }

  /** The numbers of the query's one progress, once it has made it. */
  private def progressNumbers(query: StreamingQuery): Map[String, String] = {
    eventually("the first progress", query = Some(query))(query.lastProgress != null)
    assert(query.recentProgress.length == 1, "one trigger")
    query.lastProgress.sources.head.metrics.asScala.toMap.filter { case (_, v) => v.matches("[0-9.E-]+") }
  }

  test("each query's gauges are the numbers of its progress, and go when it stops", Integration) {
    val one = newStream(shards = 1)
    val two = newStream(shards = 2)
    put(one, (1 to 5).map(i => s"one-$i"))
    put(two, (1 to 9).map(i => s"two-$i"))
    val checkpoint = newCheckpoint()
    val named = startOnce(one, Some("orders-metrics"), checkpoint)
    val unnamed = startOnce(two, None, newCheckpoint())
    try {
      val expected =
        Map("orders-metrics" -> (one, progressNumbers(named)), unnamed.id.toString -> (two, progressNumbers(unnamed)))
      assert(
        expected("orders-metrics")._2("numTotalShards") == "1" && expected(unnamed.id.toString)
          ._2("numTotalShards") == "2")
      for ((query, (stream, numbers)) <- expected) {
        assert(
          numbers.keySet.contains("maxMsBehindLatest") && numbers.keySet.contains("totalPrefetchedRecords"),
          numbers)
        val shown = prometheus()
        numbers.foreach { case (gauge, value) =>
          assert(shown.get(prometheusName(query, stream, gauge)).contains(value), s"$query $gauge in Prometheus")
        }
        eventually(s"the CSV sink's rows of $query", seconds = 10)(numbers.keys.forall(csv(query, stream, _).isDefined))
        numbers.foreach { case (gauge, value) =>
          assert(csv(query, stream, gauge).contains(value), s"$query $gauge in the CSV sink")
        }
      }

      named.stop()
      val afterStop = prometheus()
      assert(!afterStop.keys.exists(_.contains("_kinesis_orders_metrics_")), "a stopped query's gauges are gone")
      assert(
        afterStop.get(prometheusName(unnamed.id.toString, two, "numTotalShards")).contains("2"),
        "the other's stay")

      // The same query again, from its checkpoint: its gauges come back, with its new progress.
      val again = startOnce(one, Some("orders-metrics"), checkpoint)
      try {
        val numbers = progressNumbers(again)
        val shown = prometheus()
        numbers.foreach { case (gauge, value) =>
          assert(shown.get(prometheusName("orders-metrics", one, gauge)).contains(value), s"$gauge after a restart")
        }
      } finally again.stop()
    } finally {
      named.stop()
      unnamed.stop()
    }
    assert(!prometheus().keys.exists(_.contains("_kinesis_")), "no query, no gauge")
  }

  test("without spark.sql.streaming.metricsEnabled a query registers no gauge", Integration) {
    val stream = newStream(shards = 1)
    spark.conf.set("spark.sql.streaming.metricsEnabled", "false")
    try {
      val query = startOnce(stream, Some("not-exported"), newCheckpoint())
      try {
        progressNumbers(query)
        assert(!prometheus().keys.exists(_.contains("_kinesis_")))
      } finally query.stop()
    } finally spark.conf.set("spark.sql.streaming.metricsEnabled", "true")
  }
}
