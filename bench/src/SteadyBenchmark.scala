// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.file.Files
import java.util.concurrent.{ConcurrentLinkedQueue, Executors, TimeUnit}
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.bench.synthetic.{ShardLimits, StreamSpec, SyntheticKinesis}
import org.apache.spark.scheduler.{SparkListener, SparkListenerJobStart}
import org.apache.spark.sql.streaming.{StreamingQueryListener, Trigger}
import org.apache.spark.sql.SparkSession
import software.amazon.awssdk.services.kinesis.model.{
  GetRecordsRequest,
  ListShardsRequest,
  ProvisionedThroughputExceededException
}

/**
 * A stream written steadily and read as it arrives, with Kinesis' limits on: `shards` shards of the synthetic
 * Kinesis, each taking `share` of a shard's write limit (1 MiB a second) in records of `recordBytes`, which
 * arrive at that rate from the stream's making on (`StreamSpec.arrivalsPerSecond`). Read first by a query with
 * the default options into the `noop` sink, then, on a stream of its own made the same way, by plain AWS SDK
 * readers doing the same: a thread per shard, a GetRecords call every 400 ms (`minFetchPeriod`'s default).
 * Each reader runs `warmUpSeconds`, then is measured for `seconds`: the records it read, the CPU the process
 * spent (the synthetic Kinesis' serving included, the same for both, as both read every record), the CPU a
 * record, split by kind of thread ([[ThreadCpu]]), the GetRecords calls Kinesis answered, and how far behind
 * the newest record it was (the query's `maxMsBehindLatest` at each progress, the SDK's `MillisBehindLatest`
 * at each answer). Prints a table and writes bench/results/steady-benchmark.json. The warm-up is long (a
 * minute) because the query is the JVM's first: its JIT compilers took 8.2 s of a 60 s window after a
 * minute's warm-up (2.8 s after 150 s), while the SDK readers, which run second, meet a warm JVM.
 *
 * Kinesis' read limit (2 MB a second a shard) is twice its write limit, so a stream written at 80 % of the
 * read limit cannot be made; at 80 % of the write limit a reader reads at 40 % of the read limit.
 * With `triggerMs`, the query runs with a processing-time trigger of that interval, in milliseconds.
 * Usage: dev/bench steady [shards=100] [seconds=120] [recordBytes=1000] [share=0.8] [warmUpSeconds=60] [triggerMs]
 */
object SteadyBenchmark {

  /** What one reader did in its measured window. */
  final case class Run(
      reader: String,
      records: Long,
      seconds: Double,
      cpuSeconds: Double,
      lagMillis: Seq[Long],
      calls: Map[String, Long] = Map.empty,
      cpuByThreads: Seq[(String, Double)] = Nil,
      batches: Long = 0,
      sparkJobs: Long = 0) {
    def recordsPerSecond: Double = records / seconds
    def cpuMicrosPerRecord: Double = cpuSeconds * 1e6 / math.max(1L, records)
    def maxLagMillis: Long = if (lagMillis.isEmpty) 0L else lagMillis.max
  }

  final case class Result(shards: Int, recordBytes: Int, arrivalsPerSecond: Double, connector: Run, sdk: Run) {

    /** Records a second arriving in the whole stream. */
    def arriving: Double = arrivalsPerSecond * shards

    /** The connector's CPU a record as a multiple of the SDK's. */
    def cpuRatio: Double = connector.cpuMicrosPerRecord / sdk.cpuMicrosPerRecord
  }

  def main(args: Array[String]): Unit = {
    val shards = args.lift(0).map(_.toInt).getOrElse(100)
    val seconds = args.lift(1).map(_.toInt).getOrElse(120)
    val recordBytes = args.lift(2).map(_.toInt).getOrElse(1000)
    val share = args.lift(3).map(_.toDouble).getOrElse(0.8)
    val warmUpSeconds = args.lift(4).map(_.toInt).getOrElse(60)
    val trigger = args.lift(5).map(_.toLong)
    val kinesis = SyntheticKinesis.start()
    val spark = BenchKinesis.spark(cores = 2)
    try {
      val result = run(kinesis, spark, shards, seconds, recordBytes, share, warmUpSeconds, trigger)
      report(
        result,
        share,
        s"dev/bench steady $shards $seconds $recordBytes $share $warmUpSeconds" + trigger.fold("")(t => s" $t"))
    } finally {
      spark.stop()
      kinesis.close()
    }
  }

  def run(
      kinesis: SyntheticKinesis,
      spark: SparkSession,
      shards: Int,
      seconds: Int,
      recordBytes: Int,
      share: Double,
      warmUpSeconds: Int,
      triggerMs: Option[Long] = None): Result = {
    val rate = share * ShardLimits.WriteBytesPerSecond / recordBytes
    def stream(prefix: String): String = {
      val name = s"$prefix-${java.util.UUID.randomUUID().toString.take(8)}"
      kinesis.create(StreamSpec(name, shards, recordBytes = recordBytes, limits = true, arrivalsPerSecond = rate))
      name
    }
    val connector = queryRun(spark, kinesis, stream("steady-query"), seconds, warmUpSeconds, triggerMs)
    val sdk = sdkRun(kinesis, stream("steady-sdk"), seconds, warmUpSeconds)
    Result(shards, recordBytes, rate, connector, sdk)
  }

  /**
   * A measured window, from its making to [[end]]: the records the reader counted, the process' CPU and each
   * kind of thread's ([[ThreadCpu]]), and the calls Kinesis answered ([[Counted]]).
   */
  private final class Window(kinesis: SyntheticKinesis, records: => Long) {
    private val (records0, cpu0, at0) = (records, ThreadCpu.snapshot(), System.nanoTime())
    private val calls0 = kinesis.callCounts
    val startedAt: Long = System.currentTimeMillis()

    def end(reader: String, lags: Seq[Long]): Run = {
      val cpu = ThreadCpu.snapshot()
      Run(
        reader,
        records - records0,
        (System.nanoTime() - at0) / 1e9,
        (cpu.processNanos - cpu0.processNanos) / 1e9,
        lags,
        Counted.map(k => k -> (kinesis.callCounts.getOrElse(k, 0L) - calls0.getOrElse(k, 0L))).toMap,
        cpu.spentSince(cpu0).toSeq.map { case (kind, nanos) => kind -> nanos / 1e9 }.sortBy(-_._2)
      )
    }
  }

  /** What Kinesis was asked over a window: the calls of each reader's kind, and the records answered. */
  private val Counted = Seq("GetRecords", "GetRecords records", "GetRecords throttled", "GetShardIterator")

  /**
   * A query with the default options from the stream's start into the `noop` sink, with Spark's default
   * trigger or a processing-time trigger of `triggerMs`; counts its batches with records, and the Spark jobs
   * (the batches' and the prefetch jobs').
   */
  private def queryRun(
      spark: SparkSession,
      kinesis: SyntheticKinesis,
      stream: String,
      seconds: Int,
      warmUpSeconds: Int,
      triggerMs: Option[Long]): Run = {
    val rows = new AtomicLong()
    val batches = new AtomicLong()
    val jobs = new AtomicLong()
    val jobCounter = new SparkListener {
      override def onJobStart(jobStart: SparkListenerJobStart): Unit = jobs.incrementAndGet()
    }
    val lags = new ConcurrentLinkedQueue[(Long, Long)]() // (when, maxMsBehindLatest)
    val listener = new StreamingQueryListener {
      override def onQueryStarted(event: StreamingQueryListener.QueryStartedEvent): Unit = ()
      override def onQueryTerminated(event: StreamingQueryListener.QueryTerminatedEvent): Unit = ()
      override def onQueryProgress(event: StreamingQueryListener.QueryProgressEvent): Unit =
        if (event.progress.name == stream) {
          rows.addAndGet(event.progress.numInputRows)
          if (event.progress.numInputRows > 0) batches.incrementAndGet()
          event.progress.sources.headOption
            .flatMap(s => Option(s.metrics.get("maxMsBehindLatest")))
            .foreach(lag => lags.add(System.currentTimeMillis() -> lag.toLong))
        }
    }
    spark.streams.addListener(listener)
    spark.sparkContext.addSparkListener(jobCounter)
    val writer = spark.readStream
      .format("kinesis")
      .options(kinesis.connectorOptions)
      .option("streamName", stream)
      .option("initialPosition", "trim_horizon")
      .load()
      .writeStream
      .queryName(stream)
      .format("noop")
      .option("checkpointLocation", Files.createTempDirectory("bench-checkpoint").toString)
    val query = triggerMs.fold(writer)(ms => writer.trigger(Trigger.ProcessingTime(ms))).start()
    try {
      Thread.sleep(warmUpSeconds * 1000L)
      val (batches0, jobs0) = (batches.get, jobs.get)
      val window = new Window(kinesis, rows.get)
      Thread.sleep(seconds * 1000L)
      query.exception.foreach(e => throw e)
      window
        .end(
          "connector, a query with the default options" + triggerMs.fold("")(ms => s", trigger every $ms ms"),
          lags.asScala.collect { case (at, lag) if at >= window.startedAt => lag }.toSeq
        )
        .copy(batches = batches.get - batches0, sparkJobs = jobs.get - jobs0)
    } finally {
      query.stop()
      spark.streams.removeListener(listener)
      spark.sparkContext.removeSparkListener(jobCounter)
    }
  }

  /** Plain SDK readers: a thread per shard from the stream's start, a call every 400 ms, throttling rested. */
  private def sdkRun(kinesis: SyntheticKinesis, stream: String, seconds: Int, warmUpSeconds: Int): Run = {
    val client = kinesis.sdkClient()
    val shards = client.listShards(ListShardsRequest.builder().streamName(stream).build()).shards().asScala
    val pool = Executors.newFixedThreadPool(shards.size)
    val records = new AtomicLong()
    val lags = new ConcurrentLinkedQueue[(Long, Long)]()
    @volatile var running = true
    shards.foreach { shard =>
      pool.execute { () =>
        var iterator = BenchKinesis.trimHorizon(client, stream, shard.shardId())
        while (running) {
          val started = System.nanoTime()
          try {
            val answer = client.getRecords(GetRecordsRequest.builder().shardIterator(iterator).limit(10000).build())
            records.addAndGet(answer.records().size.toLong)
            lags.add(System.currentTimeMillis() -> answer.millisBehindLatest().longValue)
            iterator = answer.nextShardIterator()
            Thread.sleep(math.max(0L, 400 - (System.nanoTime() - started) / 1000000))
          } catch {
            case _: ProvisionedThroughputExceededException => Thread.sleep(1000)
          }
        }
      }
    }
    try {
      Thread.sleep(warmUpSeconds * 1000L)
      val window = new Window(kinesis, records.get)
      Thread.sleep(seconds * 1000L)
      window.end(
        "AWS SDK GetRecords, a thread per shard, every 400 ms",
        lags.asScala.collect { case (at, lag) if at >= window.startedAt => lag }.toSeq)
    } finally {
      running = false
      pool.shutdown()
      pool.awaitTermination(10, TimeUnit.SECONDS)
      client.close()
    }
  }

  // ---- report ----

  private def report(r: Result, share: Double, command: String): Unit = {
    println(
      f"${r.shards} shards, records of ${r.recordBytes} B arriving at ${share * 100}%.0f %% of the write limit: " +
        f"${r.arrivalsPerSecond}%.0f a second a shard, ${r.arriving}%.0f in all")
    println(
      f"${"reader"}%-54s ${"records"}%9s ${"rec/s"}%8s ${"cpu s"}%7s ${"µs cpu/rec"}%11s ${"lag p50"}%8s ${"max"}%7s")
    Seq(r.connector, r.sdk).foreach { run =>
      println(
        f"${run.reader}%-54s ${run.records}%9d ${run.recordsPerSecond}%8.0f ${run.cpuSeconds}%7.1f " +
          f"${run.cpuMicrosPerRecord}%11.1f ${BenchKinesis.percentile(run.lagMillis, 50).getOrElse(0L)}%8d " +
          f"${run.maxLagMillis}%7d")
    }
    Seq(r.connector, r.sdk).foreach { run =>
      val calls = run.calls.getOrElse("GetRecords", 0L)
      println(
        f"${run.reader}: ${calls / run.seconds}%.0f GetRecords calls a second, " +
          f"${run.calls.getOrElse("GetRecords records", 0L).toDouble / math.max(1L, calls)}%.0f records a call, " +
          f"${run.calls.getOrElse("GetRecords throttled", 0L)} throttled, " +
          f"${run.calls.getOrElse("GetShardIterator", 0L) / run.seconds}%.1f GetShardIterator calls a second" +
          (if (run.sparkJobs > 0)
             f", ${run.batches / run.seconds}%.1f batches and ${run.sparkJobs / run.seconds}%.1f Spark jobs a second"
           else ""))
      println(
        "  CPU s by thread: " +
          run.cpuByThreads.take(8).map { case (kind, seconds) => f"$kind $seconds%.1f" }.mkString(", "))
    }
    println(f"connector / SDK, CPU a record: ${r.cpuRatio}%.2f")
    def json(run: Run): String = {
      val lagP50 = BenchKinesis.percentile(run.lagMillis, 50).getOrElse(0L)
      val calls = run.calls.toSeq.sorted.map { case (k, v) => s""""$k": $v""" }.mkString(", ")
      val threads = run.cpuByThreads.take(10).map { case (k, v) => f""""$k": $v%.2f""" }.mkString(", ")
      f"""{"reader": "${run.reader}", "records": ${run.records}, "seconds": ${run.seconds}%.1f, """ +
        f""""cpuSeconds": ${run.cpuSeconds}%.2f, "cpuMicrosPerRecord": ${run.cpuMicrosPerRecord}%.2f, """ +
        s""""lagP50Millis": $lagP50, "lagMaxMillis": ${run.maxLagMillis}, "batches": ${run.batches}, """ +
        s""""sparkJobs": ${run.sparkJobs}, "kinesisCalls": {$calls}, "cpuSecondsByThread": {$threads}}"""
    }
    BenchKinesis.saveResults(
      "steady-benchmark.json",
      command,
      "synthetic Kinesis in the benchmark's JVM, Kinesis' limits on, records generated as they arrive",
      Seq(
        s""""shards": ${r.shards}, "recordBytes": ${r.recordBytes}, "arrivalsPerSecondPerShard": ${f"${r.arrivalsPerSecond}%.1f"}""",
        s""""runs": [\n    ${json(r.connector)},\n    ${json(r.sdk)}\n  ]""",
        f""""connectorToSdkCpuPerRecord": ${r.cpuRatio}%.3f"""
      )
    )
  }
}
