// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.io.File
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._
import scala.util.Random

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis, SyntheticStream}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.streaming.StreamingQuery
import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.services.kinesis.model.PutRecordRequest

/**
 * Many shards on few cores: a stream of `shards` shards on the synthetic Kinesis, with Kinesis' per-shard
 * limits, read on `local[2]` by a query with the default options into a `foreachBatch` sink, as a user
 * starts one. Each shard holds two records at the start. Measured, in this order:
 *  - start: from `start()` to the end of the first batch with rows, and of the batch that completes the
 *    backlog;
 *  - a quiet stream: for `seconds`, one record a second put to a shard drawn at random; each one's time
 *    from its put to the sink (its arrival time, stamped by the synthetic Kinesis, to the `foreachBatch`
 *    call that holds it), the durations of the batches with rows, and the planning of every batch
 *    (latestOffset and queryPlanning);
 *  - resharding meanwhile: a third of the way through, a shard drawn at random is split, a record put to it
 *    just before and one to each child just after; two thirds of the way, the children are merged again and
 *    a record put to the merged shard. Every record put, these and the quiet stream's, must reach the sink
 *    exactly once;
 *  - Kinesis' control plane, over the whole run: the ListShards and DescribeStreamSummary calls, in all and in
 *    the busiest second, against Kinesis' limits (100 and 20 a second), which the synthetic Kinesis keeps;
 *  - idle: the CPU the JVM spends in 10 s with nothing arriving, less the synthetic Kinesis' own threads
 *    (local mode: the driver, the prefetch tasks and the batches share the JVM); and of it the driver's
 *    ([[IdleDriver]]): the query's thread, split by a sampler between the connector's code and Spark's own,
 *    and the connector's driver threads; and the GetRecords calls a second the prefetching made meanwhile;
 *  - the size of the newest offset file, and the heap in use after a garbage collection;
 *  - once the query has stopped, the baseline of its idle polling: the plain SDK calling the stream's open
 *    shards as many times a second as the prefetching did, on as many threads ([[IdleSdkPolling]]).
 * A 10-shard query runs first, so that the runs measured do not pay for the JVM's first query.
 * Prints a table and writes bench/results/scale-benchmark.json.
 * Usage: dev/bench scale [shards=200,1000] [seconds=30]
 */
object ScaleBenchmark {
  import BenchKinesis.{largest, percentile}

  /**
   * The driver's CPU in an idle query, in shares of one core: the query's thread (Spark's trigger loop,
   * asking the source for an offset and its metrics every 10 ms), the share of its samples in the connector's
   * code, and the connector's own driver threads (shard listing and the prefetcher's).
   */
  final case class IdleDriver(queryThread: Double, connectorFractionOfQueryThread: Double, connectorThreads: Double) {
    def connector: Double = queryThread * connectorFractionOfQueryThread + connectorThreads
    def spark: Double = queryThread * (1 - connectorFractionOfQueryThread)
  }

  final case class Result(
      shards: Int,
      firstBatchMillis: Option[Long],
      firstBatchSteps: Seq[(String, Long)],
      backlogMillis: Option[Long],
      latencies: Seq[Long],
      recordsPut: Int,
      batchMillis: Seq[Long],
      planningMillis: Seq[Long],
      idleCpuShare: Double,
      idleCpuByThreads: Seq[(String, Double)],
      idleDriver: IdleDriver,
      idleGetRecordsPerSecond: Double,
      offsetFileBytes: Long,
      heapUsedBytes: Long,
      resharding: Resharding,
      controlPlane: Seq[CallRates.Rate],
      idleSdk: Option[IdleSdkPolling.Cost] = None) {

    /** The prefetch threads' CPU a GetRecords call while idle, in microseconds. */
    def idlePrefetchMicrosPerCall: Double = {
      val prefetch = idleCpuByThreads.collect {
        case (kind, share) if kind.startsWith("kinesis-prefetch-") => share
      }.sum
      if (idleGetRecordsPerSecond <= 0) 0.0 else prefetch * 1e6 / idleGetRecordsPerSecond
    }
  }

  /** Whether every record put during the quiet stream and its split and merge reached the sink once. */
  final case class Resharding(put: Int, missing: Seq[String], repeated: Seq[String]) {
    def exactlyOnce: Boolean = missing.isEmpty && repeated.isEmpty
  }

  def main(args: Array[String]): Unit = {
    val shardCounts = args.lift(0).map(_.split(',').map(_.trim.toInt).toSeq).getOrElse(Seq(200, 1000))
    val seconds = args.lift(1).map(_.toInt).getOrElse(30)
    val kinesis = SyntheticKinesis.start()
    val spark = BenchKinesis.spark(cores = 2)
    try {
      // The JVM's first query pays for loading and compiling Spark's and the connector's code: a small one
      // first, so that the runs measured compare shard counts, not which came first.
      val warmUp = run(kinesis, spark, shards = 10, seconds = 3, idleSeconds = 1)
      println(
        s"A warm-up query of 10 shards, the JVM's first: its first batch ${warmUp.firstBatchMillis.fold("none")(ms => s"$ms ms")}")
      val results = shardCounts.map(shards => run(kinesis, spark, shards, seconds))
      report(results, warmUp, s"dev/bench scale ${shardCounts.mkString(",")} $seconds")
    } finally {
      spark.stop()
      kinesis.close()
    }
  }

  def run(kinesis: SyntheticKinesis, spark: SparkSession, shards: Int, seconds: Int, idleSeconds: Int = 10): Result = {
    val name = s"scale-$shards-${java.util.UUID.randomUUID().toString.take(8)}"
    val stream = kinesis.create(StreamSpec(name, shards, backlogPerShard = 2, recordBytes = 100, limits = true))
    val checkpoint = Files.createTempDirectory("bench-checkpoint").toFile
    val rows = new ConcurrentLinkedQueue[(Long, Long, String)]() // (arrival, seen at the sink in epoch ms, data)
    val controlPlane = new CallRates(kinesis, Seq("ListShards", "DescribeStreamSummary"))
    val startedAt = System.currentTimeMillis()
    val query: StreamingQuery = spark.readStream
      .format("kinesis")
      .options(kinesis.connectorOptions)
      .option("streamName", name)
      .option("initialPosition", "trim_horizon")
      .load()
      .selectExpr("unix_millis(approximateArrivalTimestamp) AS arrival", "CAST(data AS STRING) AS data")
      .writeStream
      .option("checkpointLocation", checkpoint.toString)
      .foreachBatch { (batch: DataFrame, _: Long) =>
        val seen = batch.collect().map(r => (r.getLong(0), r.getString(1)))
        val now = System.currentTimeMillis()
        seen.foreach { case (arrival, data) => rows.add((arrival, now, data)) }
      }
      .start()
    val result =
      try {
        val backlog = 2L * shards
        val firstBatch = waitFor(!rows.isEmpty, 300).map(_ => System.currentTimeMillis() - startedAt)
        val backlogRead = waitFor(rows.size >= backlog, 300).map(_ => System.currentTimeMillis() - startedAt)
        val quietFrom = System.currentTimeMillis()
        val batchesBefore = query.recentProgress.length
        val put = putWhileResharding(kinesis, stream, seconds, new Random(shards))
        waitFor(rows.size >= backlog + put.size, 60)
        val quiet = query.recentProgress
          .drop(batchesBefore)
          .filter(p => java.time.Instant.parse(p.timestamp).toEpochMilli >= quietFrom)
        val latencies = rows.asScala.collect { case (arrival, seen, _) if arrival >= quietFrom => seen - arrival }.toSeq
        val seenCounts =
          rows.asScala.toSeq.filter(_._1 >= quietFrom).groupBy(_._3).map { case (d, all) => d -> all.size }
        val getRecordsBefore = kinesis.callCounts.getOrElse("GetRecords", 0L)
        val (idle, idleByThreads, idleDriver) = idleCpuShare(idleSeconds)
        val idleGetRecords = (kinesis.callCounts.getOrElse("GetRecords", 0L) - getRecordsBefore).toDouble / idleSeconds
        System.gc()
        val heap = ManagementFactory.getMemoryMXBean.getHeapMemoryUsage.getUsed
        Result(
          shards,
          firstBatch,
          firstBatchSteps(query, startedAt),
          backlogRead,
          latencies,
          seconds,
          quiet.filter(_.numInputRows > 0).map(_.durationMs.get("triggerExecution").longValue).toSeq,
          quiet
            .map(p =>
              Seq("latestOffset", "queryPlanning").flatMap(k => Option(p.durationMs.get(k))).map(_.longValue).sum)
            .toSeq,
          idle,
          idleByThreads,
          idleDriver,
          idleGetRecords,
          newestOffsetFile(checkpoint).map(_.length).getOrElse(0L),
          heap,
          Resharding(
            put.size,
            put.filterNot(seenCounts.contains),
            seenCounts.collect { case (d, n) if n > 1 || !put.contains(d) => s"$d ($n times)" }.toSeq.sorted),
          controlPlane.stop()
        )
      } finally {
        query.stop()
        controlPlane.stop() // again if the run failed first: it ends the sampler's thread
      }
    val sdk = IdleSdkPolling.measure(kinesis, stream, result.idleGetRecordsPerSecond, PrefetchThreads, idleSeconds)
    result.copy(idleSdk = Some(sdk))
  }

  /** The threads of the query's prefetch task: `shardsPerTask`, 5 by default. */
  private val PrefetchThreads = 5

  /**
   * For `seconds`, one record a second to a shard drawn at random; a third of the way, a shard split, a record
   * put to it before and to each child after; two thirds of the way, the children merged, a record put to the
   * merged shard. Returns the data of every record put, each different.
   */
  private def putWhileResharding(
      kinesis: SyntheticKinesis,
      stream: SyntheticStream,
      seconds: Int,
      random: Random): Seq[String] = {
    val client = kinesis.sdkClient()
    val name = stream.spec.name
    val put = Seq.newBuilder[String]
    def putRecord(data: String, hashKey: Option[BigInt]): Unit = {
      val request = PutRecordRequest.builder().streamName(name).partitionKey(s"key-${random.nextInt()}")
      hashKey.foreach(k => request.explicitHashKey(k.toString))
      client.putRecord(request.data(SdkBytes.fromString(data, UTF_8)).build())
      put += data
    }
    def firstHashKey(shardId: String): Option[BigInt] = stream.shards.find(_.id == shardId).map(_.hashKeys._1)
    var children = Seq.empty[String]
    try {
      (1 to seconds).foreach { i =>
        if (i == math.max(1, seconds / 3)) {
          val parent = stream.openShards(random.nextInt(stream.openShards.size))
          putRecord(s"to ${parent.id} before its split", Some(parent.hashKeys._1))
          children = kinesis.split(name, parent.id)
          children.foreach(child => putRecord(s"to $child, a child of ${parent.id}", firstHashKey(child)))
        }
        if (i == math.max(2, 2 * seconds / 3) && children.size == 2) {
          val merged = kinesis.merge(name, children(0), children(1))
          putRecord(s"to $merged, merged from ${children.mkString(" and ")}", firstHashKey(merged))
        }
        putRecord(s"record $i", None)
        Thread.sleep(1000)
      }
    } finally client.close()
    put.result()
  }

  /**
   * Where the time to the first batch with rows went: from start() to the trigger that ran it (Spark's
   * start, the query's first triggers), then that trigger's own steps as Spark times them.
   */
  private def firstBatchSteps(query: StreamingQuery, startedAt: Long): Seq[(String, Long)] =
    query.recentProgress.find(_.numInputRows > 0).toSeq.flatMap { p =>
      val triggeredAt = java.time.Instant.parse(p.timestamp).toEpochMilli
      val steps = p.durationMs.asScala.toSeq.collect {
        case (step, ms) if step != "triggerExecution" && ms.longValue > 0 => step -> ms.longValue
      }
      ("until its trigger" -> (triggeredAt - startedAt)) +: steps.sortBy(-_._2)
    }

  /** Waits up to `seconds` for `done`; the time it took, or None if it did not come. */
  private def waitFor(done: => Boolean, seconds: Int): Option[Long] = {
    val started = System.nanoTime()
    val deadline = started + seconds * 1000000000L
    while (!done && System.nanoTime() < deadline) Thread.sleep(20)
    if (done) Some((System.nanoTime() - started) / 1000000) else None
  }

  /**
   * The share of one core the JVM spends over `seconds`, less the synthetic Kinesis' threads; and the
   * largest shares by kind of thread ([[ThreadCpu]]: names without their numbers and query ids, and on Linux
   * the JVM's JIT compilers and garbage collector), where "JVM and threads that ended" is the rest: the JVM's
   * other threads, and threads that came and went (a prefetch task's, for one).
   */
  private def idleCpuShare(seconds: Int): (Double, Seq[(String, Double)], IdleDriver) = {
    // Not the query's: the synthetic Kinesis' threads, and the sampler's.
    def synthetic(kind: String): Boolean = kind.startsWith("synthetic-kinesis") || kind == Sampler
    val sampler = new QueryThreadSampler
    val (before, wall0) = (ThreadCpu.snapshot(), System.nanoTime())
    Thread.sleep(seconds * 1000L)
    val (after, wall1) = (ThreadCpu.snapshot(), System.nanoTime())
    val connectorFraction = sampler.stop()
    val wall = (wall1 - wall0).toDouble
    val byKind = after.spentSince(before).toSeq.filterNot { case (kind, _) => synthetic(kind) }
    val total = byKind.map(_._2).sum
    val largest = byKind.sortBy(-_._2).take(6)
    def share(prefix: String) = byKind.collect { case (kind, nanos) if kind.startsWith(prefix) => nanos }.sum / wall
    val driver =
      IdleDriver(share(QueryThread), connectorFraction, share("kinesis-driver-call") + share("kinesis-prefetcher"))
    (total / wall, largest.map { case (kind, nanos) => kind -> nanos / wall }, driver)
  }

  private val QueryThread = "stream execution thread for"
  private val Sampler = "idle-driver-sampler"

  /**
   * Samples the query's thread every 5 ms while it runs (not while it waits): the share of the samples with
   * the connector's code on the stack, which is the connector's share of the thread's CPU time.
   */
  private final class QueryThreadSampler {
    private val threads = ManagementFactory.getThreadMXBean
    @volatile private var running = true
    private var connector = 0
    private var all = 0
    private val thread = new Thread(
      () => {
        val query = threads.getThreadInfo(threads.getAllThreadIds).filter(_ != null).collect {
          case t if t.getThreadName.startsWith(QueryThread) => t.getThreadId
        }
        while (running) {
          threads.getThreadInfo(query, 80).filter(_ != null).foreach { t =>
            if (t.getThreadState == Thread.State.RUNNABLE) {
              all += 1
              if (t.getStackTrace.exists(_.getClassName.startsWith("io.github.sparkkinesis."))) connector += 1
            }
          }
          Thread.sleep(5)
        }
      },
      Sampler
    )
    thread.setDaemon(true)
    thread.start()

    /** Stops sampling; the share of the query thread's samples in the connector's code. */
    def stop(): Double = {
      running = false
      thread.join()
      if (all == 0) 0.0 else connector.toDouble / all
    }
  }

  private def newestOffsetFile(checkpoint: File): Option[File] =
    Option(new File(checkpoint, "offsets").listFiles()).toSeq.flatten
      .filter(_.getName.forall(_.isDigit))
      .sortBy(_.getName.toLong)
      .lastOption

  // ---- report ----

  private def report(results: Seq[Result], warmUp: Result, command: String): Unit = {
    def ms(v: Option[Long]): String = v.fold("none within the wait")(x => s"$x ms")
    results.foreach { r =>
      println(s"${r.shards} shards on local[2]:")
      println(
        s"  start() to the first batch with rows: ${ms(r.firstBatchMillis)}; to the whole backlog: ${ms(r.backlogMillis)}")
      println(
        "  the first batch with rows: " + r.firstBatchSteps.map { case (step, v) => s"$step $v ms" }.mkString(", "))
      println(
        s"  a record put to its row, quiet stream (${r.latencies.size} of ${r.recordsPut}): p50 ${ms(percentile(r.latencies, 50))}, " +
          s"p99 ${ms(percentile(r.latencies, 99))}, max ${ms(largest(r.latencies))}")
      println(
        s"  batches with rows while quiet: ${r.batchMillis.size}, duration p50 ${ms(percentile(r.batchMillis, 50))}, " +
          s"planning (latestOffset + queryPlanning) p50 ${ms(percentile(r.planningMillis, 50))}, max ${ms(largest(r.planningMillis))}")
      println(
        f"  idle: ${r.idleCpuShare * 100}%.1f %% of a core, ${r.idleGetRecordsPerSecond}%.0f GetRecords a second; offset file ${r.offsetFileBytes} bytes; heap used ${r.heapUsedBytes / 1048576} MiB")
      val d = r.idleDriver
      println(
        f"  idle driver: the query's thread ${d.queryThread * 100}%.1f %% (${d.connectorFractionOfQueryThread * 100}%.0f %% " +
          f"of its samples in the connector), the connector's driver threads ${d.connectorThreads * 100}%.1f %%: " +
          f"the connector ${d.connector * 100}%.1f %% of a core, Spark's trigger loop ${d.spark * 100}%.1f %%")
      r.idleSdk.foreach { sdk =>
        println(
          f"  idle polling: the prefetch threads ${r.idlePrefetchMicrosPerCall}%.0f µs a call; the plain SDK, as many calls " +
            f"a second on $PrefetchThreads threads: ${sdk.microsPerCall}%.0f µs a call, ${sdk.cpuShare * 100}%.1f %% of a core")
      }
      val re = r.resharding
      println(s"  a split and a merge while quiet: ${re.put} records put, ${if (re.exactlyOnce) "every one read once"
        else s"missing ${re.missing.mkString("; ")}; more than once or not put ${re.repeated.mkString("; ")}"}")
      println(
        "  control plane: " + r.controlPlane
          .map(c =>
            s"${c.operation} ${c.calls} calls, ${c.busiestSecond} in the busiest second, ${c.throttled} turned down")
          .mkString("; "))
      println(
        "  idle CPU by thread: " + r.idleCpuByThreads
          .map { case (kind, share) => f"$kind ${share * 100}%.1f %%" }
          .mkString("; "))
    }
    def json(v: Option[Long]): String = v.fold("null")(_.toString)
    def threadsJson(r: Result): String =
      r.idleCpuByThreads
        .map { case (kind, share) => "\"" + kind.replace('"', '\'') + "\": " + f"$share%.3f" }
        .mkString(", ")
    val body = results
      .map { r =>
        s"""    {"shards": ${r.shards}, "startToFirstBatchMillis": ${json(r.firstBatchMillis)}, """ +
          s""""firstBatchStepsMillis": {${r.firstBatchSteps
              .map { case (k, v) => "\"" + k + "\": " + v }
              .mkString(", ")}}, """ +
          s""""startToBacklogReadMillis": ${json(r.backlogMillis)},\n""" +
          s"""      "recordsPut": ${r.recordsPut}, "recordsSeen": ${r.latencies.size}, "putToRowP50Millis": ${json(
              percentile(r.latencies, 50))}, """ +
          s""""putToRowP99Millis": ${json(percentile(r.latencies, 99))}, "putToRowMaxMillis": ${json(
              largest(r.latencies))},\n""" +
          s"""      "quietBatches": ${r.batchMillis.size}, "batchDurationP50Millis": ${json(
              percentile(r.batchMillis, 50))}, """ +
          s""""planningP50Millis": ${json(percentile(r.planningMillis, 50))}, "planningMaxMillis": ${json(
              largest(r.planningMillis))},\n""" +
          f"""      "idleCpuShareOfOneCore": ${r.idleCpuShare}%.3f, "idleCpuByThreads": {${threadsJson(r)}},\n""" +
          f"""      "idleGetRecordsPerSecond": ${r.idleGetRecordsPerSecond}%.1f,\n""" +
          f"""      "idleDriver": {"queryThread": ${r.idleDriver.queryThread}%.3f, "connectorFractionOfQueryThread": """ +
          f"""${r.idleDriver.connectorFractionOfQueryThread}%.3f, "connectorThreads": ${r.idleDriver.connectorThreads}%.3f, """ +
          f""""connector": ${r.idleDriver.connector}%.3f, "spark": ${r.idleDriver.spark}%.3f},\n""" +
          f"""      "offsetFileBytes": ${r.offsetFileBytes}, "heapUsedBytes": ${r.heapUsedBytes},\n""" +
          f"""      "idlePrefetchMicrosPerCall": ${r.idlePrefetchMicrosPerCall}%.1f, """ +
          r.idleSdk.fold(""""idleSdk": null,\n""")(sdk =>
            f""""idleSdk": {"callsPerSecond": ${sdk.callsPerSecond}%.1f, "cpuShareOfOneCore": ${sdk.cpuShare}%.3f, """ +
              f""""microsPerCall": ${sdk.microsPerCall}%.1f},\n""") +
          s"""      "resharding": {"recordsPut": ${r.resharding.put}, "exactlyOnce": ${r.resharding.exactlyOnce}, """ +
          s""""missing": ${r.resharding.missing.size}, "repeated": ${r.resharding.repeated.size}},\n""" +
          s"""      "controlPlane": {${r.controlPlane
              .map(c =>
                s""""${c.operation}": {"calls": ${c.calls}, "busiestSecond": ${c.busiestSecond}, "throttled": ${c.throttled}}""")
              .mkString(", ")}}}"""
      }
      .mkString(",\n")
    BenchKinesis.saveResults(
      "scale-benchmark.json",
      command,
      "synthetic Kinesis in the benchmark's JVM, Kinesis' limits on",
      Seq(s""""warmUpFirstBatchMillis": ${json(warmUp.firstBatchMillis)}""", s""""runs": [\n$body\n  ]""")
    )
  }
}
