package io.github.sparkkinesis.bench

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.time.Instant
import java.util.concurrent.{Callable, Executors}

import io.github.sparkkinesis.client.{IteratorStart, KinesisAdminApi, KinesisClientFactory, PutRecord}
import io.github.sparkkinesis.testing.{EmulatorProcess, KinesisEmulator}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.streaming.Trigger

/**
 * Read throughput of the connector against the plain SDK reading the same stream, in the same run.
 *
 *  - baseline: one thread per shard, GetShardIterator at TRIM_HORIZON and GetRecords until caught up;
 *  - connector: a Spark query (local[2]) with Trigger.AvailableNow over the same stream, into a no-op sink.
 *
 * Runs on kinesis-local unless KINESIS_ENDPOINT is set. Prints a table and writes
 * bench/results/read-throughput.json. Usage: dev/bench [shards] [recordsPerShard] [payloadBytes]
 */
object ReadBenchmark {

  final case class Result(name: String, records: Long, bytes: Long, millis: Long) {
    def recordsPerSecond: Double = records * 1000.0 / millis
    def megabytesPerSecond: Double = bytes * 1000.0 / millis / 1e6
  }

  def main(args: Array[String]): Unit = {
    val shards = args.lift(0).map(_.toInt).getOrElse(4)
    val perShard = args.lift(1).map(_.toInt).getOrElse(2000)
    val payload = args.lift(2).map(_.toInt).getOrElse(200)
    val root = new File(sys.props.getOrElse("kinesis.test.root", "."))
    val external = sys.env.get("KINESIS_ENDPOINT").filter(_.nonEmpty)
    val region = external.flatMap(_ => sys.env.get("AWS_REGION")).getOrElse("us-east-1")
    val emulator = new EmulatorProcess(root, region)
    val endpoint = external.getOrElse(emulator.start())
    val aws = KinesisEmulator.awsConfig(region, endpoint, emulated = external.isEmpty)
    val admin = KinesisClientFactory.createAdmin(aws)
    val stream = s"bench-${java.util.UUID.randomUUID().toString.take(8)}"
    try {
      admin.createStream(stream, shards)
      val written = write(admin, stream, shards * perShard, payload)
      println(s"Wrote $written records of $payload bytes to $shards shards of $stream at $endpoint")
      val baseline = sdkRead(admin, stream)
      val connector = sparkRead(stream, endpoint, region, external.isEmpty)
      val results = Seq(baseline, connector)
      results.foreach(r => assert(r.records == written, s"${r.name} read ${r.records} of $written records"))
      report(root, results, shards, perShard, payload, endpoint)
    } finally {
      if (external.isDefined) admin.deleteStream(stream)
      admin.close()
      emulator.stop()
    }
  }

  private def write(admin: KinesisAdminApi, stream: String, count: Int, payload: Int): Int = {
    val body = ("x" * payload).getBytes(UTF_8)
    (0 until count).grouped(500).foreach { group =>
      val results = admin.putRecords(stream, group.map(i => PutRecord(s"key-$i", body)))
      require(results.forall(_.succeeded), s"PutRecords failed: ${results.filterNot(_.succeeded).take(3)}")
    }
    count
  }

  private def sdkRead(admin: KinesisAdminApi, stream: String): Result = {
    val shards = admin.listShards(stream, 100)
    val pool = Executors.newFixedThreadPool(shards.size)
    val started = System.nanoTime()
    val perShard = shards.map { shard =>
      pool.submit(new Callable[(Long, Long)] {
        def call(): (Long, Long) = {
          var iterator = Option(admin.getShardIterator(stream, shard.shardId, IteratorStart.TrimHorizon))
          var (records, bytes) = (0L, 0L)
          var caughtUp = false
          while (!caughtUp && iterator.isDefined) {
            val batch = admin.getRecords(stream, shard.shardId, iterator.get, 10000)
            records += batch.records.size
            bytes += batch.records.map(_.data.length.toLong).sum
            caughtUp = batch.records.isEmpty && batch.millisBehindLatest == 0
            iterator = batch.nextIterator
          }
          (records, bytes)
        }
      })
    }
    val totals = perShard.map(_.get())
    val millis = (System.nanoTime() - started) / 1000000
    pool.shutdown()
    Result("AWS SDK GetRecords, a thread per shard", totals.map(_._1).sum, totals.map(_._2).sum, millis)
  }

  private def sparkRead(stream: String, endpoint: String, region: String, emulated: Boolean): Result = {
    val spark = SparkSession
      .builder()
      .master("local[2]")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.driver.host", "127.0.0.1")
      .getOrCreate()
    try {
      val credentials =
        if (emulated) Map("awsAccessKey" -> KinesisEmulator.AccessKey, "awsSecretKey" -> KinesisEmulator.SecretKey)
        else Map.empty[String, String]
      val counted = new java.util.concurrent.atomic.AtomicLong()
      val bytes = new java.util.concurrent.atomic.AtomicLong()
      val df = spark.readStream
        .format("kinesis")
        .options(credentials ++ Map("streamName" -> stream, "endpoint" -> endpoint, "region" -> region))
        .option("initialPosition", "trim_horizon")
        .load()
      val started = System.nanoTime()
      val query = df
        .selectExpr("length(data) AS size")
        .writeStream
        .option("checkpointLocation", Files.createTempDirectory("bench-checkpoint").toString)
        .trigger(Trigger.AvailableNow())
        .foreachBatch { (batch: DataFrame, _: Long) =>
          val row = batch.selectExpr("count(*)", "coalesce(sum(size), 0)").head()
          counted.addAndGet(row.getLong(0))
          bytes.addAndGet(row.getLong(1))
          ()
        }
        .start()
      query.awaitTermination()
      val millis = (System.nanoTime() - started) / 1000000
      Result(
        s"connector, Trigger.AvailableNow, local[2] (${query.recentProgress.length} batches)",
        counted.get,
        bytes.get,
        millis)
    } finally spark.stop()
  }

  private def report(
      root: File,
      results: Seq[Result],
      shards: Int,
      perShard: Int,
      payload: Int,
      endpoint: String): Unit = {
    println(f"${"reader"}%-55s ${"records"}%9s ${"ms"}%8s ${"records/s"}%11s ${"MB/s"}%7s")
    results.foreach { r =>
      println(f"${r.name}%-55s ${r.records}%9d ${r.millis}%8d ${r.recordsPerSecond}%11.0f ${r.megabytesPerSecond}%7.2f")
    }
    val json = results
      .map { r =>
        s"""    {"reader": "${r.name}", "records": ${r.records}, "bytes": ${r.bytes}, "millis": ${r.millis}, """ +
          f""""recordsPerSecond": ${r.recordsPerSecond}%.0f, "megabytesPerSecond": ${r.megabytesPerSecond}%.3f}"""
      }
      .mkString(",\n")
    val target = if (endpoint.startsWith("http://127.0.0.1")) "kinesis-local on loopback" else endpoint
    val out = new File(root, "bench/results/read-throughput.json")
    out.getParentFile.mkdirs()
    Files.write(
      out.toPath,
      s"""{
         |  "measuredAt": "${Instant.now()}",
         |  "kinesis": "$target",
         |  "machine": "${Runtime.getRuntime.availableProcessors()} cores",
         |  "shards": $shards, "recordsPerShard": $perShard, "payloadBytes": $payload,
         |  "results": [
         |$json
         |  ]
         |}
         |""".stripMargin.getBytes(UTF_8)
    )
    println(s"Saved ${out.getPath}")
  }
}
