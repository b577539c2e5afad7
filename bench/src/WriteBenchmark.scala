// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{Callable, Executors}

import scala.collection.concurrent.TrieMap

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, Secret}
import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis, SyntheticStream}
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
 * Runs on kinesis-local unless KINESIS_ENDPOINT is set; with `synthetic`, on the synthetic Kinesis
 * (bench/src/synthetic), at memory speed or, with `limits`, within Kinesis' write limits per shard (1,000
 * records and 1 MiB a second), where both writers are throttled and send again what was turned down: the
 * records the synthetic Kinesis holds are then counted against what each writer says it wrote. Prints a
 * table and writes bench/results/write-benchmark.json (synthetic-write-benchmark.json).
 * Usage: dev/bench-write [shards=4] [recordsPerShard=2000] [payloadBytes=200]
 *        dev/bench-write synthetic [shards=10] [recordsPerShard=10000] [payloadBytes=200] [limits|off]
 */
object WriteBenchmark {

  final case class Result(name: String, rows: Long, kinesisRecords: Long, bytes: Long, millis: Long) {
    def rowsPerSecond: Double = rows * 1000.0 / millis
    def megabytesPerSecond: Double = bytes * 1000.0 / millis / 1e6
  }

  private val Tasks = 2
  private val InFlightPerTask = 4

  /** Where the records go: fresh streams, the connector's options to them, and a client for the baseline. */
  trait Target extends AutoCloseable {
    def options: Map[String, String]
    def api: KinesisApi
    def newStream(prefix: String): String

    /** The Kinesis records a stream holds, where the endpoint can tell. */
    def stored(stream: String): Option[Long]
    def description: String
  }

  private final class Emulated(shards: Int) extends Target {
    private val kinesis = new BenchKinesis(shards)
    override def options: Map[String, String] = kinesis.options
    override def api: KinesisApi = kinesis.admin
    override def newStream(prefix: String): String = kinesis.newStream(prefix)
    override def stored(stream: String): Option[Long] = None
    override def description: String = kinesis.description
    override def close(): Unit = kinesis.close()
  }

  /** Streams of `shards` shards on the synthetic Kinesis, within Kinesis' write limits if `limits`. */
  final class Synthetic(kinesis: SyntheticKinesis, shards: Int, limits: Boolean) extends Target {
    private val streams = TrieMap.empty[String, SyntheticStream]
    override val options: Map[String, String] = kinesis.connectorOptions
    override val api: KinesisApi = KinesisAdminApi.create(
      AwsConfig(
        "us-east-1",
        Some(kinesis.endpoint),
        AwsCredentialsConfig.StaticKeys("bench", new Secret("bench"), None)))
    override def newStream(prefix: String): String = {
      val name = s"$prefix-${java.util.UUID.randomUUID().toString.take(8)}"
      streams(name) = kinesis.create(StreamSpec(name, shards, limits = limits))
      name
    }
    override def stored(stream: String): Option[Long] = streams.get(stream).map(_.shards.map(_.end).sum)
    override def description: String =
      s"synthetic Kinesis in the benchmark's JVM, Kinesis' limits ${if (limits) "on" else "off"}"
    override def close(): Unit = api.close()
  }

  def main(args: Array[String]): Unit = {
    val synthetic = args.headOption.contains("synthetic")
    val numbers = if (synthetic) args.drop(1) else args
    val shards = numbers.lift(0).map(_.toInt).getOrElse(if (synthetic) 10 else 4)
    val perShard = numbers.lift(1).map(_.toInt).getOrElse(if (synthetic) 10000 else 2000)
    val payload = numbers.lift(2).map(_.toInt).getOrElse(200)
    val limits = numbers.lift(3).contains("limits")
    val kinesis = if (synthetic) Some(SyntheticKinesis.start()) else None
    val target = kinesis.fold[Target](new Emulated(shards))(new Synthetic(_, shards, limits))
    val spark = BenchKinesis.spark(cores = Tasks)
    try {
      val results = run(target, spark, shards * perShard, payload)
      val command =
        if (synthetic) s"dev/bench-write synthetic $shards $perShard $payload ${if (limits) "limits" else "off"}"
        else s"dev/bench-write $shards $perShard $payload"
      val file =
        if (!synthetic) "write-benchmark.json"
        else if (limits) "synthetic-write-benchmark-limits.json"
        else "synthetic-write-benchmark.json"
      report(target, results, command, file)
    } finally {
      spark.stop()
      target.close()
      kinesis.foreach(_.close())
    }
  }

  /**
   * The three writers, after a small warm-up write; fails unless each wrote every row, and, where the
   * endpoint can tell, unless it holds exactly the Kinesis records each writer says it wrote.
   */
  def run(target: Target, spark: SparkSession, count: Int, payload: Int): Seq[Result] = {
    val options = target.options
    sparkWrite(spark, rowsOf(spark, 20, payload), target.newStream("bench-warm-up"), options, "warm-up")
    val rows = rowsOf(spark, count, payload)
    val streams = Seq("bench-sdk", "bench-sink", "bench-sink-kpl").map(target.newStream)
    val results = Seq(
      sdkWrite(target.api, streams(0), count, payload),
      sparkWrite(spark, rows, streams(1), options, "connector, df.write"),
      sparkWrite(
        spark,
        rows,
        streams(2),
        options + ("kplAggregation" -> "true"),
        "connector, df.write with kplAggregation")
    )
    results.zip(streams).foreach { case (r, stream) =>
      require(r.rows == count, s"${r.name} wrote ${r.rows} of $count rows")
      target.stored(stream).foreach { held =>
        require(held == r.kinesisRecords, s"${r.name} says it wrote ${r.kinesisRecords} Kinesis records; $held arrived")
      }
    }
    rows.unpersist()
    results
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

  /** PutRecords from several threads; records turned down (throttled) are sent again after a pause. */
  private def sdkWrite(api: KinesisApi, stream: String, count: Int, payload: Int): Result = {
    val body = ("x" * payload).getBytes(UTF_8)
    val requests = (0 until count).map(i => PutRecord(s"key-$i", body)).grouped(500).toSeq
    val pool = Executors.newFixedThreadPool(Tasks * InFlightPerTask)
    val started = System.nanoTime()
    val sent = requests.map { group =>
      pool.submit(new Callable[Int] {
        def call(): Int = {
          var left = group
          while (left.nonEmpty) {
            left = left.zip(api.putRecords(stream, left)).filterNot(_._2.succeeded).map(_._1)
            if (left.nonEmpty) Thread.sleep(RetryPauseMs)
          }
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

  /** How long the baseline waits before sending again the records Kinesis turned down. */
  private val RetryPauseMs = 100L

  private def report(target: Target, results: Seq[Result], command: String, file: String): Unit = {
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
    BenchKinesis.saveResults(
      file,
      command,
      target.description,
      Seq(
        s""""throughput": [\n$json\n  ]""",
        f""""connectorToSdkRatio": $ratio%.3f""",
        f""""connectorWithAggregationToSdkRatio": $aggregatedRatio%.3f""")
    )
  }
}
