// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{Callable, Executors}

import io.github.sparkkinesis.client._
import io.github.sparkkinesis.testing.SqlUiMetrics
import org.apache.spark.sql.{DataFrame, SparkSession}

/**
 * Write throughput of the sink against the plain AWS SDK's PutRecords, in one run, each into a fresh stream
 * of `shards` shards, `shards` x `recordsPerShard` records of `payloadBytes`:
 *  - baseline: the records built in memory beforehand, sent in PutRecords requests of 500 by as many
 *    threads as the Spark job has requests under way (2 tasks x maxInFlightRequests 4): the most the
 *    endpoint takes at that concurrency;
 *  - connector: `df.write.format("kinesis")` of a cached DataFrame of the same records in 2 partitions on
 *    local[2], with the default settings, then with kplAggregation (rows/s counts user records; the Kinesis
 *    records are fewer).
 * The connector's time is the whole Spark job, in a JVM warmed up by a small write first.
 *
 * Runs on kinesis-local unless KINESIS_ENDPOINT is set. Prints a table and writes
 * bench/results/write-benchmark.json.
 * Usage: dev/bench-write [shards=4] [recordsPerShard=2000] [payloadBytes=200]
 */
object WriteBenchmark {

  final case class Result(name: String, rows: Long, kinesisRecords: Long, bytes: Long, millis: Long) {
    def rowsPerSecond: Double = rows * 1000.0 / millis
    def megabytesPerSecond: Double = bytes * 1000.0 / millis / 1e6
  }

  private val Tasks = 2
  private val InFlightPerTask = 4

  def main(args: Array[String]): Unit = {
    val shards = args.lift(0).map(_.toInt).getOrElse(4)
    val perShard = args.lift(1).map(_.toInt).getOrElse(2000)
    val payload = args.lift(2).map(_.toInt).getOrElse(200)
    val count = shards * perShard
    val kinesis = new BenchKinesis(shards)
    val spark = BenchKinesis.spark(cores = Tasks)
    try {
      val options = kinesis.options
      sparkWrite(spark, rowsOf(spark, 10 * shards, payload), kinesis.newStream("bench-warm-up"), options, "warm-up")
      val rows = rowsOf(spark, count, payload)
      val results = Seq(
        sdkWrite(kinesis.admin, kinesis.newStream("bench-sdk"), count, payload),
        sparkWrite(spark, rows, kinesis.newStream("bench-sink"), options, "connector, df.write"),
        sparkWrite(
          spark,
          rows,
          kinesis.newStream("bench-sink-kpl"),
          options + ("kplAggregation" -> "true"),
          "connector, df.write with kplAggregation")
      )
      results.foreach(r => require(r.rows == count, s"${r.name} wrote ${r.rows} of $count rows"))
      report(kinesis, results, s"dev/bench-write $shards $perShard $payload")
    } finally {
      spark.stop()
      kinesis.close()
    }
  }

  /** `count` rows of `payload` bytes, each its own partition key, cached in `Tasks` partitions. */
  private def rowsOf(spark: SparkSession, count: Int, payload: Int): DataFrame = {
    val rows = spark
      .range(count)
      .selectExpr("CONCAT('key-', CAST(id AS STRING)) AS partitionKey", s"REPEAT('x', $payload) AS data")
      .repartition(Tasks)
      .cache()
    require(rows.count() == count)
    rows
  }

  private def sdkWrite(admin: KinesisAdminApi, stream: String, count: Int, payload: Int): Result = {
    val body = ("x" * payload).getBytes(UTF_8)
    val requests = (0 until count).map(i => PutRecord(s"key-$i", body)).grouped(500).toSeq
    val pool = Executors.newFixedThreadPool(Tasks * InFlightPerTask)
    val started = System.nanoTime()
    val sent = requests.map { group =>
      pool.submit(new Callable[Int] {
        def call(): Int = {
          var left = group
          while (left.nonEmpty) left = left.zip(admin.putRecords(stream, left)).filterNot(_._2.succeeded).map(_._1)
          group.size
        }
      })
    }
    val rows = sent.map(_.get().toLong).sum
    val millis = (System.nanoTime() - started) / 1000000
    pool.shutdown()
    Result(s"AWS SDK PutRecords, ${Tasks * InFlightPerTask} threads", rows, rows, rows * payload, millis)
  }

  private def sparkWrite(
      spark: SparkSession,
      rows: DataFrame,
      stream: String,
      options: Map[String, String],
      name: String): Result = {
    val started = System.nanoTime()
    rows.write.format("kinesis").options(options).option("streamName", stream).mode("append").save()
    val millis = (System.nanoTime() - started) / 1000000
    val metrics = SqlUiMetrics.lastWrite(spark)
    Result(
      name,
      metrics.getOrElse("recordsWritten", -1L),
      metrics.getOrElse("kinesisRecordsWritten", -1L),
      metrics.getOrElse("bytesWritten", -1L),
      millis)
  }

  private def report(kinesis: BenchKinesis, results: Seq[Result], command: String): Unit = {
    println(f"${"writer"}%-45s ${"rows"}%8s ${"records"}%8s ${"ms"}%7s ${"rows/s"}%9s ${"MB/s"}%6s")
    results.foreach { r =>
      println(
        f"${r.name}%-45s ${r.rows}%8d ${r.kinesisRecords}%8d ${r.millis}%7d ${r.rowsPerSecond}%9.0f " +
          f"${r.megabytesPerSecond}%6.2f")
    }
    val ratio = results(1).rowsPerSecond / results(0).rowsPerSecond
    val aggregatedRatio = results(2).rowsPerSecond / results(0).rowsPerSecond
    println(f"connector / SDK: $ratio%.2f, with kplAggregation $aggregatedRatio%.2f")
    val json = results
      .map { r =>
        s"""    {"writer": "${r.name}", "rows": ${r.rows}, "kinesisRecords": ${r.kinesisRecords}, """ +
          s""""bytes": ${r.bytes}, "millis": ${r.millis}, """ +
          f""""rowsPerSecond": ${r.rowsPerSecond}%.0f, "megabytesPerSecond": ${r.megabytesPerSecond}%.3f}"""
      }
      .mkString(",\n")
    kinesis.saveResults(
      "write-benchmark.json",
      command,
      Seq(
        s""""throughput": [\n$json\n  ]""",
        f""""connectorToSdkRatio": $ratio%.3f""",
        f""""connectorWithAggregationToSdkRatio": $aggregatedRatio%.3f""")
    )
  }
}
