// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.KinesisAdminApi
import org.apache.spark.sql.{ForeachWriter, Row, SparkSession}
import org.apache.spark.sql.streaming.Trigger

/**
 * Real-time mode's latency, in one run on the emulator (or KINESIS_ENDPOINT): from PutRecord to a `foreach`
 * sink, for `records` records put one every 50 ms to a `shards`-shard stream while each reader runs:
 *  - polling: the plain AWS SDK calling GetRecords every 210 ms on each shard; the connector in micro-batches
 *    with the documented low-latency settings (the best micro-batches do); the connector in real-time mode
 *    with `minFetchPeriod` 200ms;
 *  - enhanced fan-out: a plain SDK subscription per shard (the emulator's own push delay); the connector in
 *    real-time mode with `consumerMode` efo.
 * Real-time batches last `batchSeconds`, so that the records cross batch ends: a record that arrives
 * while one batch ends and the next starts waits for the next batch's tasks. Spark runs on `cores` cores:
 * by default a core per shard and two for Spark; with fewer cores than shards each real-time task reads
 * several shards.
 * Prints a table and writes bench/results/real-time-benchmark.json (with fewer cores than shards,
 * real-time-benchmark-<shards>-shards-<cores>-cores.json).
 * Usage: dev/bench realtime [shards=4] [records=300] [batchSeconds=10] [cores=shards+2]
 */
object RealTimeBenchmark {
  import ReadBenchmark.{putTimestamped, waitFor, Latency}

  def main(args: Array[String]): Unit = {
    val shards = args.lift(0).map(_.toInt).getOrElse(4)
    val records = args.lift(1).map(_.toInt).getOrElse(300)
    val batchSeconds = args.lift(2).map(_.toInt).getOrElse(10)
    val cores = args.lift(3).map(_.toInt).getOrElse(shards + 2)
    val kinesis = new BenchKinesis(shards)
    val spark = BenchKinesis.spark(cores)
    val results =
      if (cores >= shards) "real-time-benchmark.json" else s"real-time-benchmark-$shards-shards-$cores-cores.json"
    try {
      val (polling, subscribed) = run(spark, kinesis, records, batchSeconds)
      report(kinesis, polling, subscribed, s"dev/bench realtime $shards $records $batchSeconds $cores", results)
    } finally {
      spark.stop()
      kinesis.close()
    }
  }

  /** The polling readers' latencies, then the enhanced fan-out readers'. */
  def run(spark: SparkSession, kinesis: BenchKinesis, records: Int, batchSeconds: Int): (Seq[Latency], Seq[Latency]) = {
    import kinesis.{admin, options}
    val warmUp = kinesis.newStream("bench-warm-up")
    realTimeLatency(spark, admin, warmUp, options, 20, batchSeconds) // the JVM's and Spark's first query
    val live = kinesis.newStream("bench-live")
    val efo = Map("consumerMode" -> "efo", "requireConsumerDeregistration" -> "true")
    val polling = Seq(
      ReadBenchmark.sdkLatency(admin, live, records),
      ReadBenchmark.sparkLatency(spark, admin, live, options, records),
      realTimeLatency(spark, admin, live, options + ("minFetchPeriod" -> "200ms"), records, batchSeconds)
    )
    val subscribed = Seq(
      ReadBenchmark.sdkSubscribedLatency(admin, live, records),
      realTimeLatency(spark, admin, live, options ++ efo, records, batchSeconds))
    (polling, subscribed)
  }

  /** Each row's latency, from the instant it carries to when the sink got it; by the sink's id. */
  private val latencies = new java.util.concurrent.ConcurrentHashMap[String, ConcurrentLinkedQueue[Long]]()

  /** A `foreach` sink that takes each row's latency as it arrives. */
  private final class LatencyWriter(sink: String) extends ForeachWriter[Row] {
    override def open(partitionId: Long, epochId: Long): Boolean = true
    override def process(row: Row): Unit =
      latencies.get(sink).add(System.currentTimeMillis() - new String(row.getAs[Array[Byte]]("data"), UTF_8).toLong)
    override def close(errorOrNull: Throwable): Unit = ()
  }

  private def realTimeLatency(
      spark: SparkSession,
      admin: KinesisAdminApi,
      stream: String,
      options: Map[String, String],
      count: Int,
      batchSeconds: Int): Latency = {
    val sink = java.util.UUID.randomUUID().toString
    val seen = new ConcurrentLinkedQueue[Long]()
    latencies.put(sink, seen)
    val query = spark.readStream
      .format("kinesis")
      .options(options)
      .option("streamName", stream)
      .load()
      .writeStream
      .outputMode("update")
      .option("checkpointLocation", Files.createTempDirectory("bench-checkpoint").toString)
      .trigger(Trigger.RealTime(s"$batchSeconds seconds"))
      .foreach(new LatencyWriter(sink))
      .start()
    Thread.sleep(3000) // the first batch's tasks have started (and, under efo, subscribed)
    putTimestamped(admin, stream, count)
    waitFor(seen.size >= count, "the real-time query")
    query.stop()
    latencies.remove(sink)
    val efo = options.get("consumerMode").contains("efo")
    Latency(
      if (efo) s"connector real-time efo, ${batchSeconds}s batches"
      else s"connector real-time, minFetchPeriod 200ms, ${batchSeconds}s batches",
      seen.asScala.toSeq
    )
  }

  private def report(
      kinesis: BenchKinesis,
      polling: Seq[Latency],
      subscribed: Seq[Latency],
      command: String,
      results: String): Unit = {
    println(f"${"PutRecord to sink"}%-62s ${"records"}%8s ${"p50 ms"}%7s ${"p99 ms"}%7s ${"max ms"}%7s")
    (polling ++ subscribed).foreach { l =>
      println(f"${l.name}%-62s ${l.millis.size}%8d ${l.percentile(50)}%7d ${l.percentile(99)}%7d ${l.millis.max}%7d")
    }
    def json(ls: Seq[Latency]): String =
      ls.map { l =>
        s"""    {"reader": "${l.name}", "records": ${l.millis.size}, "p50Millis": ${l.percentile(50)}, """ +
          s""""p99Millis": ${l.percentile(99)}, "maxMillis": ${l.millis.max}}"""
      }.mkString(",\n")
    kinesis.saveResults(
      results,
      command,
      Seq(s""""polling": [\n${json(polling)}\n  ]""", s""""enhancedFanOut": [\n${json(subscribed)}\n  ]"""))
  }
}
