// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.{Callable, ConcurrentLinkedQueue, Executors}
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client._
import io.github.sparkkinesis.consumers.ConsumerRegistration
import io.github.sparkkinesis.util.SystemClock
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.streaming.Trigger

/**
 * Read throughput and latency of the connector, against the plain AWS SDK on the same stream, in one run.
 *
 * Throughput, over a stream loaded beforehand with `shards` x `recordsPerShard` records of `payloadBytes`:
 *  - baseline: one thread per shard, GetShardIterator at TRIM_HORIZON and GetRecords until caught up, with
 *    no pause between calls: the most the Kinesis endpoint serves;
 *  - connector: a `Trigger.AvailableNow` query (local[2]) into Spark's `noop` sink, with the fastest settings
 *    Kinesis allows (maxFetchRate 2.0, minFetchPeriod 200ms); its time includes the query's start, in a
 *    JVM warmed up by the same query over a small stream first (Spark's first query compiles its code).
 * The two read the same records `rounds` times in turn, so that each round's ratio compares reads under
 * the same load; the round of the median ratio is reported, with every round's ratio.
 *
 * Latency, from PutRecord to the record reaching the reader, for `latencyRecords` records put one every
 * 50 ms while the reader runs:
 *  - baseline: one thread per shard calling GetRecords every 210 ms;
 *  - connector: a query with the documented low-latency settings (maxFetchDuration 200ms, minFetchPeriod
 *    210ms) into a `foreachBatch` sink.
 *
 * Both again with enhanced fan-out, side by side with polling: the baseline a SubscribeToShard subscription
 * per shard through the SDK's HTTP/2 client, the connector with `consumerMode` efo.
 *
 * Runs on kinesis-local unless KINESIS_ENDPOINT is set. Prints a table and writes
 * bench/results/read-benchmark.json.
 * Usage: dev/bench [shards=4] [recordsPerShard=2000] [payloadBytes=200] [latencyRecords=300] [rounds=3]
 */
object ReadBenchmark {

  final case class Throughput(name: String, records: Long, bytes: Long, millis: Long) {
    def recordsPerSecond: Double = records * 1000.0 / millis
    def megabytesPerSecond: Double = bytes * 1000.0 / millis / 1e6
  }

  /** The SDK's read and the connector's of the same records, one after the other. */
  final case class Round(sdk: Throughput, connector: Throughput) {
    def ratio: Double = connector.recordsPerSecond / sdk.recordsPerSecond
  }

  /** The round of the median ratio (of the upper two of an even number). */
  def medianRound(rounds: Seq[Round]): Round = rounds.sortBy(_.ratio).apply(rounds.size / 2)

  final case class Latency(name: String, millis: Seq[Long]) {
    def percentile(p: Double): Long = BenchKinesis.percentile(millis, p).get
  }

  /** The low-latency settings' goal: the median record at the sink within this long of its PutRecord. */
  val LowLatencyGoalMs = 1000L

  /** The connector's enhanced fan-out settings; the benchmark's consumers go when its queries stop. */
  private val Efo = Map("consumerMode" -> "efo", "requireConsumerDeregistration" -> "true")

  private def isEfo(options: Map[String, String]): Boolean = options.get("consumerMode").contains("efo")

  private val PutIntervalMs = 50L
  private val PollIntervalMs = 210L

  def main(args: Array[String]): Unit = {
    val shards = args.lift(0).map(_.toInt).getOrElse(4)
    val perShard = args.lift(1).map(_.toInt).getOrElse(2000)
    val payload = args.lift(2).map(_.toInt).getOrElse(200)
    val latencyRecords = args.lift(3).map(_.toInt).getOrElse(300)
    val rounds = args.lift(4).map(_.toInt).getOrElse(3)
    require(rounds >= 1, s"rounds must be 1 or more, not $rounds")
    val kinesis = new BenchKinesis(shards)
    import kinesis.{admin, options}
    val loaded = kinesis.newStream("bench-load")
    val live = kinesis.newStream("bench-live")
    val spark = BenchKinesis.spark(cores = 2)
    try {
      val warmUp = kinesis.newStream("bench-warm-up")
      write(admin, warmUp, 10 * shards, payload)
      sparkRead(spark, warmUp, options, payload)
      sparkRead(spark, warmUp, options ++ Efo, payload)
      val written = write(admin, loaded, shards * perShard, payload)
      println(s"Wrote $written records of $payload bytes to $shards shards of $loaded at ${kinesis.endpoint}")
      val polling = (1 to rounds).map(_ => Round(sdkRead(admin, loaded), sparkRead(spark, loaded, options, payload)))
      val efo = (1 to rounds).map { _ =>
        Round(sdkSubscribedRead(admin, loaded, written), sparkRead(spark, loaded, options ++ Efo, payload))
      }
      (polling ++ efo).flatMap(r => Seq(r.sdk, r.connector)).foreach { r =>
        require(r.records == written, s"${r.name} read ${r.records} of $written records")
      }
      val latency = Seq(
        sdkLatency(admin, live, latencyRecords),
        sparkLatency(spark, admin, live, options, latencyRecords),
        sdkSubscribedLatency(admin, live, latencyRecords),
        sparkLatency(spark, admin, live, options ++ Efo, latencyRecords)
      )
      val startUp = Seq(false, true).map(lowLatency => startToFirstRow(spark, kinesis, lowLatency))
      report(kinesis, polling, efo, latency, startUp, s"dev/bench $shards $perShard $payload $latencyRecords $rounds")
    } finally {
      spark.stop()
      kinesis.close()
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

  // ---- throughput ----

  private def sdkRead(admin: KinesisAdminApi, stream: String): Throughput = {
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
    Throughput("AWS SDK GetRecords, a thread per shard", totals.map(_._1).sum, totals.map(_._2).sum, millis)
  }

  /**
   * A `Trigger.AvailableNow` query of `stream` into Spark's `noop` sink, which takes every row and keeps
   * nothing, as the SDK loop hands every record to nothing; the rows are counted from the query's progress,
   * their bytes are `payload` each.
   */
  private def sparkRead(spark: SparkSession, stream: String, options: Map[String, String], payload: Int): Throughput = {
    val df = spark.readStream
      .format("kinesis")
      .options(options)
      .option("streamName", stream)
      .option("initialPosition", "trim_horizon")
      .option("maxFetchRate", "2.0")
      .option("minFetchPeriod", "200ms")
      .load()
    val started = System.nanoTime()
    val query = df.writeStream
      .format("noop")
      .option("checkpointLocation", Files.createTempDirectory("bench-checkpoint").toString)
      .trigger(Trigger.AvailableNow())
      .start()
    query.awaitTermination()
    val millis = (System.nanoTime() - started) / 1000000
    val batches = query.recentProgress.filter(_.numInputRows > 0)
    val records = batches.map(_.numInputRows).sum
    val mode = if (isEfo(options)) "connector efo" else "connector"
    Throughput(s"$mode, Trigger.AvailableNow (${batches.length} batches)", records, records * payload, millis)
  }

  /** The stream's consumer for the SDK baselines, registered and ACTIVE; deregister it when done. */
  private def sdkConsumer(admin: KinesisAdminApi, stream: String): String = {
    val streamArn = admin.describeStream(stream).arn
    ConsumerRegistration.activate(admin, stream, streamArn, s"bench-sdk-$stream", SystemClock).arn
  }

  private def dropSdkConsumer(admin: KinesisAdminApi, stream: String): Unit =
    admin.deregisterConsumer(admin.describeStream(stream).arn, s"bench-sdk-$stream")

  /**
   * Every shard read through one subscription each from TRIM_HORIZON, in parallel, until `expected`
   * records have arrived; a subscription that ends or is refused is renewed after the last record read.
   */
  private def sdkSubscribedRead(admin: KinesisAdminApi, stream: String, expected: Int): Throughput = {
    val consumer = sdkConsumer(admin, stream)
    val shards = admin.listShards(stream, 100)
    val (records, bytes) = (new AtomicLong(), new AtomicLong())
    val started = System.nanoTime()
    subscribeAll(admin, consumer, shards.map(_.shardId), IteratorStart.TrimHorizon, records.get >= expected) { r =>
      records.incrementAndGet()
      bytes.addAndGet(r.data.length.toLong)
    }
    val millis = (System.nanoTime() - started) / 1000000
    dropSdkConsumer(admin, stream)
    Throughput("AWS SDK SubscribeToShard, a subscription per shard", records.get, bytes.get, millis)
  }

  /** Reads each shard through subscriptions, on a thread each, handing records to `seen`, until `done`. */
  private def subscribeAll(
      admin: KinesisAdminApi,
      consumer: String,
      shards: Seq[String],
      start: IteratorStart,
      done: => Boolean)(seen: KinesisRecord => Unit): Unit = {
    val pool = Executors.newFixedThreadPool(shards.size)
    val readers = shards.map { shard =>
      pool.submit(new Runnable {
        def run(): Unit = {
          var from = start
          while (!done) {
            val subscription = admin.subscribeToShard(consumer, shard, from)
            try {
              var open = true
              while (open && !done) subscription.next(20) match {
                case Some(e: SubscriptionEvent.Records) =>
                  e.records.foreach(seen)
                  e.records.lastOption.foreach(r => from = IteratorStart.AfterSequenceNumber(r.sequenceNumber))
                case Some(SubscriptionEvent.Ended) => open = false
                case None => ()
              }
            } catch {
              case _: KinesisApiException.InUse => Thread.sleep(200)
            } finally subscription.close()
          }
        }
      })
    }
    readers.foreach(_.get())
    pool.shutdown()
  }

  // ---- latency ----

  /** Puts `count` records one every 50 ms, each carrying the instant it was put. */
  private[bench] def putTimestamped(admin: KinesisAdminApi, stream: String, count: Int): Unit =
    (1 to count).foreach { i =>
      admin.putRecords(stream, Seq(PutRecord(s"key-$i", System.currentTimeMillis().toString.getBytes(UTF_8))))
      Thread.sleep(PutIntervalMs)
    }

  private[bench] def sdkLatency(admin: KinesisAdminApi, stream: String, count: Int): Latency = {
    val shards = admin.listShards(stream, 100)
    val latencies = new ConcurrentLinkedQueue[Long]()
    @volatile var done = false
    val pool = Executors.newFixedThreadPool(shards.size)
    shards.foreach { shard =>
      pool.submit(new Runnable {
        def run(): Unit = {
          var iterator = admin.getShardIterator(stream, shard.shardId, IteratorStart.Latest)
          while (!done) {
            val batch = admin.getRecords(stream, shard.shardId, iterator, 10000)
            val now = System.currentTimeMillis()
            batch.records.foreach(r => latencies.add(now - new String(r.data, UTF_8).toLong))
            iterator = batch.nextIterator.get
            Thread.sleep(PollIntervalMs)
          }
        }
      })
    }
    Thread.sleep(1000) // every shard has its LATEST iterator
    putTimestamped(admin, stream, count)
    waitFor(latencies.size >= count, "the SDK readers")
    done = true
    pool.shutdown()
    Latency(s"AWS SDK GetRecords every $PollIntervalMs ms", latencies.asScala.toSeq)
  }

  private[bench] def sdkSubscribedLatency(admin: KinesisAdminApi, stream: String, count: Int): Latency = {
    val consumer = sdkConsumer(admin, stream)
    val shards = admin.listShards(stream, 100).map(_.shardId)
    val latencies = new ConcurrentLinkedQueue[Long]()
    val reading = Executors.newSingleThreadExecutor()
    val readers = reading.submit(new Runnable {
      def run(): Unit =
        subscribeAll(admin, consumer, shards, IteratorStart.Latest, latencies.size >= count) { r =>
          latencies.add(System.currentTimeMillis() - new String(r.data, UTF_8).toLong)
        }
    })
    Thread.sleep(3000) // every shard has a subscription that delivers
    putTimestamped(admin, stream, count)
    waitFor(latencies.size >= count, "the SDK subscriptions")
    readers.get()
    reading.shutdown()
    dropSdkConsumer(admin, stream)
    Latency("AWS SDK SubscribeToShard", latencies.asScala.toSeq)
  }

  private[bench] def sparkLatency(
      spark: SparkSession,
      admin: KinesisAdminApi,
      stream: String,
      options: Map[String, String],
      count: Int): Latency = {
    val latencies = new ConcurrentLinkedQueue[Long]()
    val query = spark.readStream
      .format("kinesis")
      .options(options)
      .option("streamName", stream)
      .option("maxFetchDuration", "200ms")
      .option("minFetchPeriod", "210ms")
      .load()
      .selectExpr("CAST(data AS STRING) AS sent")
      .writeStream
      .option("checkpointLocation", Files.createTempDirectory("bench-checkpoint").toString)
      .foreachBatch { (batch: DataFrame, _: Long) =>
        val now = System.currentTimeMillis()
        batch.collect().foreach(row => latencies.add(now - row.getString(0).toLong))
      }
      .start()
    waitFor(query.lastProgress != null, "the query's first batch")
    putTimestamped(admin, stream, count)
    waitFor(latencies.size >= count, "the query")
    query.stop()
    val name =
      if (isEfo(options)) "connector efo, maxFetchDuration 200ms"
      else "connector, maxFetchDuration 200ms, minFetchPeriod 210ms"
    Latency(name, latencies.asScala.toSeq)
  }

  // ---- start-up ----

  private val StartRuns = 3

  /**
   * From `start()` to the row of the one record a quiet stream holds (read from trim_horizon), the query's
   * start included, [[StartRuns]] times on fresh streams: with the default options, or the low-latency ones.
   */
  private def startToFirstRow(spark: SparkSession, kinesis: BenchKinesis, lowLatency: Boolean): Latency = {
    val settings =
      if (lowLatency) Map("maxFetchDuration" -> "200ms", "minFetchPeriod" -> "210ms") else Map.empty[String, String]
    val millis = (1 to StartRuns).map { _ =>
      val stream = kinesis.newStream("bench-start")
      kinesis.admin.putRecords(stream, Seq(PutRecord("key", "the only record".getBytes(UTF_8))))
      val seenAt = new java.util.concurrent.atomic.AtomicLong()
      val startedAt = System.currentTimeMillis()
      val query = spark.readStream
        .format("kinesis")
        .options(kinesis.options ++ settings)
        .option("streamName", stream)
        .option("initialPosition", "trim_horizon")
        .load()
        .writeStream
        .option("checkpointLocation", Files.createTempDirectory("bench-checkpoint").toString)
        .foreachBatch { (batch: DataFrame, _: Long) =>
          if (!batch.isEmpty) seenAt.compareAndSet(0L, System.currentTimeMillis())
          ()
        }
        .start()
      try waitFor(seenAt.get > 0, "the record's row")
      finally query.stop()
      seenAt.get - startedAt
    }
    Latency(
      if (lowLatency) "start() to first row, maxFetchDuration 200ms, minFetchPeriod 210ms"
      else "start() to first row, default options",
      millis)
  }

  private[bench] def waitFor(done: => Boolean, what: String): Unit = {
    val deadline = System.nanoTime() + 120L * 1000 * 1000 * 1000
    while (!done) {
      require(System.nanoTime() < deadline, s"timed out waiting for $what")
      Thread.sleep(20)
    }
  }

  // ---- report ----

  private def report(
      kinesis: BenchKinesis,
      polling: Seq[Round],
      efo: Seq[Round],
      latency: Seq[Latency],
      startUp: Seq[Latency],
      command: String): Unit = {
    val (pollingMedian, efoMedian) = (medianRound(polling), medianRound(efo))
    val throughput = Seq(pollingMedian.sdk, pollingMedian.connector, efoMedian.sdk, efoMedian.connector)
    println(
      f"${s"reader (the round of the median ratio, of ${polling.size})"}%-58s ${"records"}%8s ${"ms"}%7s " +
        f"${"records/s"}%10s ${"MB/s"}%6s")
    throughput.foreach { r =>
      println(f"${r.name}%-58s ${r.records}%8d ${r.millis}%7d ${r.recordsPerSecond}%10.0f ${r.megabytesPerSecond}%6.2f")
    }
    def ratios(rounds: Seq[Round]) = rounds.map(r => f"${r.ratio}%.2f").mkString(", ")
    println(
      f"connector / SDK: polling ${pollingMedian.ratio}%.2f (rounds ${ratios(polling)}), " +
        f"enhanced fan-out ${efoMedian.ratio}%.2f (rounds ${ratios(efo)})")
    println(f"${"PutRecord to reader"}%-58s ${"records"}%8s ${"p50 ms"}%7s ${"p99 ms"}%7s")
    latency.foreach { l =>
      println(f"${l.name}%-58s ${l.millis.size}%8d ${l.percentile(50)}%7d ${l.percentile(99)}%7d")
    }
    // The goal of the low-latency settings (docs/guides/reading.md, "Low latency"): a record at the sink well
    // under a second after it was put, by the median. Judged here, where nothing else shares the machine,
    // not in a test.
    latency.filter(l => l.name.startsWith("connector") && !l.name.contains("efo")).foreach { l =>
      val verdict = if (l.percentile(50) < LowLatencyGoalMs) "met" else "NOT met"
      println(s"goal: ${l.name}: p50 under $LowLatencyGoalMs ms: $verdict (${l.percentile(50)} ms)")
    }
    println(
      f"${s"quiet ${kinesis.shards}-shard stream with one record"}%-58s ${"runs"}%8s ${"p50 ms"}%7s ${"max ms"}%7s")
    startUp.foreach(l => println(f"${l.name}%-58s ${l.millis.size}%8d ${l.percentile(50)}%7d ${l.millis.max}%7d"))
    val startJson = startUp
      .map(l => s"""    {"query": "${l.name}", "millis": [${l.millis.mkString(", ")}]}""")
      .mkString(",\n")
    val throughputJson = throughput
      .map { r =>
        s"""    {"reader": "${r.name}", "records": ${r.records}, "bytes": ${r.bytes}, "millis": ${r.millis}, """ +
          f""""recordsPerSecond": ${r.recordsPerSecond}%.0f, "megabytesPerSecond": ${r.megabytesPerSecond}%.3f}"""
      }
      .mkString(",\n")
    def roundsJson(rounds: Seq[Round]) = rounds
      .map(r =>
        f"""    {"sdkMillis": ${r.sdk.millis}, "connectorMillis": ${r.connector.millis}, "ratio": ${r.ratio}%.3f}""")
      .mkString(",\n")
    val latencyJson = latency
      .map { l =>
        s"""    {"reader": "${l.name}", "records": ${l.millis.size}, "p50Millis": ${l.percentile(50)}, """ +
          s""""p99Millis": ${l.percentile(99)}, "maxMillis": ${l.millis.max}}"""
      }
      .mkString(",\n")
    kinesis.saveResults(
      "read-benchmark.json",
      command,
      Seq(
        s""""throughput": [\n$throughputJson\n  ]""",
        f""""connectorToSdkThroughputRatio": ${pollingMedian.ratio}%.3f""",
        f""""connectorToSdkThroughputRatioEfo": ${efoMedian.ratio}%.3f""",
        s""""pollingRounds": [\n${roundsJson(polling)}\n  ]""",
        s""""efoRounds": [\n${roundsJson(efo)}\n  ]""",
        s""""latency": [\n$latencyJson\n  ]""",
        s""""startToFirstRow": [\n$startJson\n  ]"""
      )
    )
  }
}
