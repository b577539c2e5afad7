// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.file.Files
import java.util.concurrent.{Callable, CountDownLatch, Executors, TimeUnit}
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.kpl.AggregatedRecords
import org.apache.spark.sql.streaming.{StreamingQueryListener, Trigger}
import org.apache.spark.sql.SparkSession
import software.amazon.awssdk.services.kinesis.model.{
  GetRecordsRequest,
  ListShardsRequest,
  ProvisionedThroughputExceededException
}

/**
 * The connector's ceiling: how fast it reads when Kinesis is not the bound, beside the plain AWS SDK reading
 * the same stream in the same run, on a [[SyntheticKinesis]] in this JVM (which serves records at memory
 * speed, so the figures are the readers' and this machine's).
 *
 * For each case (record size, plain or KPL-aggregated) a stream of `shards` shards is loaded with about
 * `megabytes` of records, then read from TRIM_HORIZON to its end:
 *  - baseline: the AWS SDK's Kinesis client (Apache HTTP client, as the connector's), a thread per shard
 *    calling GetRecords for 10,000 records at a time, with no pause unless Kinesis' limits are on (then 200
 *    ms between calls, and 1 s after a throttled one); aggregates are de-aggregated, as the connector does;
 *  - connector: a `Trigger.AvailableNow` query into the `noop` sink with every column of the schema, the
 *    fastest settings Kinesis allows (maxFetchRate 2.0, minFetchPeriod 200ms), timed from `start()`;
 *  - running query: the same, with the default trigger (a micro-batch as soon as the last ends), timed from
 *    `start()` to the progress of the batch that brought its count to every record of the stream;
 *  - batch read: `spark.read` of the whole stream, every row built and counted, the same settings, timed
 *    from the action (a task per shard; records go from the answers to rows, without blocks).
 *
 * Each reader's rate, and the rate per CPU second the JVM spent while it ran (the synthetic Kinesis
 * included, alike for all). Prints a table and writes bench/results/ceiling-benchmark.json.
 * Usage: dev/bench synthetic [shards=100] [megabytes=200] [limits=off]
 */
object CeilingBenchmark {

  final case class Case(name: String, recordBytes: Int, aggregated: Int) {
    def kinesisRecordBytes: Int = recordBytes * aggregated
  }

  val Cases: Seq[Case] = Seq(
    Case("100 B records", 100, 1),
    Case("1 KB records", 1000, 1),
    Case("50 KB records", 50000, 1),
    Case("100 B records, KPL-aggregated by 100", 100, 100))

  /** What one reader did: user records read, in how long, and the CPU time the JVM spent meanwhile. */
  final case class Run(reader: String, records: Long, millis: Long, cpuMillis: Long) {
    def recordsPerSecond: Double = records * 1000.0 / millis
    def recordsPerCpuSecond: Double = records * 1000.0 / math.max(1, cpuMillis)
  }

  final case class Result(c: Case, recordsPerShard: Long, sdk: Run, connector: Run, running: Run, batch: Run) {
    def ratio: Double = connector.recordsPerSecond / sdk.recordsPerSecond
    def runningRatio: Double = running.recordsPerSecond / sdk.recordsPerSecond
    def batchRatio: Double = batch.recordsPerSecond / sdk.recordsPerSecond

    /** Megabytes of user record data a second (every user record of a case has the same size). */
    def megabytesPerSecond(run: Run): Double = run.recordsPerSecond * c.recordBytes / 1e6
  }

  def main(args: Array[String]): Unit = {
    val shards = args.lift(0).map(_.toInt).getOrElse(100)
    val megabytes = args.lift(1).map(_.toInt).getOrElse(200)
    val limits = args.lift(2).contains("limits")
    val kinesis = SyntheticKinesis.start()
    val spark = BenchKinesis.spark(cores = 2)
    try {
      run(kinesis, spark, shards = 4, megabytes = 2, limits, Cases.take(1)) // warm-up: JIT, Spark's first query
      val results = run(kinesis, spark, shards, megabytes, limits, Cases)
      report(results, kinesis, s"dev/bench synthetic $shards $megabytes ${if (limits) "limits" else "off"}", limits)
    } finally {
      spark.stop()
      kinesis.close()
    }
  }

  /** Each case read by both readers, each reading the whole stream (checked). */
  def run(
      kinesis: SyntheticKinesis,
      spark: SparkSession,
      shards: Int,
      megabytes: Int,
      limits: Boolean,
      cases: Seq[Case]): Seq[Result] =
    cases.map { c =>
      val perShard = math.max(1L, megabytes * 1000000L / c.kinesisRecordBytes / shards)
      val name = s"ceiling-${java.util.UUID.randomUUID().toString.take(8)}"
      kinesis.create(StreamSpec(name, shards, perShard, c.recordBytes, c.aggregated, limits))
      val expected = perShard * shards * c.aggregated
      val sdk = sdkRead(kinesis, name, limits, c.recordBytes)
      val connector = connectorRead(spark, kinesis, name)
      val running = runningRead(spark, kinesis, name, expected)
      val batch = batchRead(spark, kinesis, name)
      Seq(sdk, connector, running, batch).foreach { r =>
        require(r.records == expected, s"${r.reader} read ${r.records} of $expected records (${c.name})")
      }
      Result(c, perShard, sdk, connector, running, batch)
    }

  private def cpuMillis(): Long = BenchKinesis.processCpuNanos() / 1000000

  /** Every shard read to its end, a thread each; user records and their bytes counted. */
  private def sdkRead(kinesis: SyntheticKinesis, stream: String, limits: Boolean, recordBytes: Int): Run = {
    val client = kinesis.sdkClient()
    val shards = client.listShards(ListShardsRequest.builder().streamName(stream).build()).shards().asScala
    val pool = Executors.newFixedThreadPool(shards.size)
    val (started, cpuAtStart) = (System.nanoTime(), cpuMillis())
    val perShard = shards.map { shard =>
      pool.submit(new Callable[(Long, Long)] {
        def call(): (Long, Long) = {
          var iterator = BenchKinesis.trimHorizon(client, stream, shard.shardId())
          var (records, bytes) = (0L, 0L)
          var caughtUp = false
          while (!caughtUp) {
            val callStarted = System.nanoTime()
            try {
              val answer = client.getRecords(GetRecordsRequest.builder().shardIterator(iterator).limit(10000).build())
              answer.records().forEach { record =>
                val data = record.data().asByteArrayUnsafe()
                AggregatedRecords.decode(data) match {
                  case AggregatedRecords.Aggregate(users) =>
                    records += users.size
                    users.foreach(u => bytes += u.data.length)
                  case _ =>
                    records += 1
                    bytes += data.length
                }
              }
              caughtUp = answer.records().isEmpty && answer.millisBehindLatest() == 0
              iterator = answer.nextShardIterator()
              if (limits) Thread.sleep(math.max(0L, 200 - (System.nanoTime() - callStarted) / 1000000))
            } catch {
              case _: ProvisionedThroughputExceededException => Thread.sleep(1000)
            }
          }
          (records, bytes)
        }
      })
    }
    val totals = perShard.map(_.get())
    val run = Run(
      "AWS SDK GetRecords, a thread per shard",
      totals.map(_._1).sum,
      (System.nanoTime() - started) / 1000000,
      cpuMillis() - cpuAtStart)
    require(totals.map(_._2).sum == run.records * recordBytes, "the SDK read every record's data whole")
    pool.shutdown()
    client.close()
    run
  }

  /** The options of a read of `stream` as fast as Kinesis' limits allow, for both of the connector's readers. */
  private def fastest(kinesis: SyntheticKinesis, stream: String): Map[String, String] =
    kinesis.connectorOptions ++ Map("streamName" -> stream, "maxFetchRate" -> "2.0", "minFetchPeriod" -> "200ms")

  /** The stream read by a `Trigger.AvailableNow` query into the `noop` sink, timed from `start()`. */
  private def connectorRead(spark: SparkSession, kinesis: SyntheticKinesis, stream: String): Run = {
    val df = spark.readStream
      .format("kinesis")
      .options(fastest(kinesis, stream))
      .option("initialPosition", "trim_horizon")
      .load()
    val (started, cpuAtStart) = (System.nanoTime(), cpuMillis())
    val query = df.writeStream
      .format("noop")
      .option("checkpointLocation", Files.createTempDirectory("bench-checkpoint").toString)
      .trigger(Trigger.AvailableNow())
      .start()
    query.awaitTermination()
    val millis = (System.nanoTime() - started) / 1000000
    val cpu = cpuMillis() - cpuAtStart
    val progress = query.recentProgress.filter(_.numInputRows > 0)
    Run(s"connector, Trigger.AvailableNow (${progress.length} batches)", progress.map(_.numInputRows).sum, millis, cpu)
  }

  /**
   * The stream read by a query that keeps running (the default trigger), timed from `start()` to the
   * progress that counts its last record; stopped then.
   */
  private def runningRead(spark: SparkSession, kinesis: SyntheticKinesis, stream: String, expected: Long): Run = {
    val df = spark.readStream
      .format("kinesis")
      .options(fastest(kinesis, stream))
      .option("initialPosition", "trim_horizon")
      .load()
    val rows = new AtomicLong()
    val batches = new AtomicLong()
    val done = new CountDownLatch(1)
    @volatile var endedAt = 0L
    @volatile var cpuAtEnd = 0L
    val listener = new StreamingQueryListener {
      override def onQueryStarted(event: StreamingQueryListener.QueryStartedEvent): Unit = ()
      override def onQueryTerminated(event: StreamingQueryListener.QueryTerminatedEvent): Unit = done.countDown()
      override def onQueryProgress(event: StreamingQueryListener.QueryProgressEvent): Unit =
        if (event.progress.name == stream && event.progress.numInputRows > 0) {
          batches.incrementAndGet()
          if (rows.addAndGet(event.progress.numInputRows) >= expected && done.getCount > 0) {
            endedAt = System.nanoTime()
            cpuAtEnd = cpuMillis()
            done.countDown()
          }
        }
    }
    spark.streams.addListener(listener)
    val (started, cpuAtStart) = (System.nanoTime(), cpuMillis())
    val query = df.writeStream
      .queryName(stream)
      .format("noop")
      .option("checkpointLocation", Files.createTempDirectory("bench-checkpoint").toString)
      .start()
    try {
      require(
        done.await(10, TimeUnit.MINUTES),
        s"the running query read ${rows.get} of $expected records in 10 minutes")
      query.exception.foreach(e => throw e)
    } finally {
      query.stop()
      spark.streams.removeListener(listener)
    }
    Run(
      s"connector, running query (${batches.get} batches)",
      rows.get,
      (endedAt - started) / 1000000,
      cpuAtEnd - cpuAtStart)
  }

  /**
   * The stream read by a batch read (`spark.read`, every row built, counted), timed from the action: its
   * records go from Kinesis' answers to rows without being stored as blocks.
   */
  private def batchRead(spark: SparkSession, kinesis: SyntheticKinesis, stream: String): Run = {
    val df = spark.read.format("kinesis").options(fastest(kinesis, stream)).load()
    val (started, cpuAtStart) = (System.nanoTime(), cpuMillis())
    val records = df.count()
    Run(
      "connector, batch read (spark.read)",
      records,
      (System.nanoTime() - started) / 1000000,
      cpuMillis() - cpuAtStart)
  }

  // ---- report ----

  private def report(results: Seq[Result], kinesis: SyntheticKinesis, command: String, limits: Boolean): Unit = {
    println(
      f"${"case"}%-38s ${"reader"}%-44s ${"records"}%9s ${"ms"}%7s ${"records/s"}%10s ${"MB/s"}%7s ${"rec/cpu-s"}%10s")
    results.foreach { r =>
      Seq(r.sdk, r.connector, r.running, r.batch).foreach { run =>
        println(
          f"${r.c.name}%-38s ${run.reader}%-44s ${run.records}%9d ${run.millis}%7d ${run.recordsPerSecond}%10.0f " +
            f"${r.megabytesPerSecond(run)}%7.1f ${run.recordsPerCpuSecond}%10.0f")
      }
      println(
        f"${r.c.name}%-38s connector / SDK: ${r.ratio}%.2f, running query / SDK: ${r.runningRatio}%.2f, " +
          f"batch read / SDK: ${r.batchRatio}%.2f")
    }
    println(
      s"synthetic Kinesis calls: ${kinesis.callCounts.toSeq.sortBy(_._1).map { case (k, v) => s"$k $v" }.mkString(", ")}")
    val json = results
      .map { r =>
        def run(x: Run): String =
          f"""{"reader": "${x.reader}", "records": ${x.records}, "millis": ${x.millis}, "cpuMillis": ${x.cpuMillis}, """ +
            f""""recordsPerSecond": ${x.recordsPerSecond}%.0f, "megabytesPerSecond": ${r.megabytesPerSecond(
                x)}%.2f, """ +
            f""""recordsPerCpuSecond": ${x.recordsPerCpuSecond}%.0f}"""
        s"""    {"case": "${r.c.name}", "recordBytes": ${r.c.recordBytes}, "aggregated": ${r.c.aggregated}, """ +
          s""""recordsPerShard": ${r.recordsPerShard},\n      "sdk": ${run(r.sdk)},\n      "connector": ${run(
              r.connector)},\n      "running": ${run(r.running)},\n      "batch": ${run(r.batch)},\n""" +
          f"""      "connectorToSdk": ${r.ratio}%.3f, "runningToSdk": ${r.runningRatio}%.3f, "batchToSdk": ${r.batchRatio}%.3f}"""
      }
      .mkString(",\n")
    BenchKinesis.saveResults(
      if (limits) "ceiling-benchmark-limits.json" else "ceiling-benchmark.json",
      command,
      s"synthetic Kinesis in the benchmark's JVM, Kinesis' limits ${if (limits) "on" else "off"}",
      Seq(s""""cases": [\n$json\n  ]""")
    )
  }
}
