// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.bench.SharedStreamReaders._
import org.apache.spark.sql.SparkSession

/**
 * Several polling readers of one stream under Kinesis' per-shard limits (5 GetRecords calls and 2 MB a
 * second, shared by every reader): 1, 2, 3 ... connector queries at once, first with the default options,
 * then with `minFetchPeriod` and `maxFetchRate` sized for that many readers, then so sized with an enhanced
 * fan-out query beside them (which reads through a consumer's subscriptions, outside the shared limits), and
 * as many plain AWS SDK readers, each calling every shard every 200 ms times the readers. Each run has a new stream of
 * `shards` shards on the synthetic Kinesis with limits on, a backlog of `backlogPerShard` records of 1 KB a
 * shard, and a writer putting `putsPerShard` records a second a shard for `seconds`; then each reader gets up
 * to 60 s to read the rest. Per reader: whether it read every record exactly once, when it had the backlog,
 * each new record's time from its put to the reader (p50 / p99), GetRecords calls a second and how many the
 * connector saw throttled, AWS' throttling answers in its progress, the share of its calls made within
 * 50 ms of another reader's call on the same shard (lockstep); per run: the synthetic Kinesis' own counts and
 * the connector's WARN lines. Prints a table and writes bench/results/shared-limits-benchmark.json.
 * Usage: dev/bench shared [queries=1,2,3] [seconds=60] [shards=4] [backlogPerShard=2000] [putsPerShard=50]
 */
object SharedLimitsBenchmark {
  import BenchKinesis.percentile

  final case class Reader(
      name: String,
      expected: Long,
      distinct: Int,
      duplicates: Int,
      backlogMillis: Option[Long],
      doneMillis: Option[Long],
      latencies: Seq[Long],
      calls: Long,
      seenThrottled: Long,
      awsRateLimitErrors: Option[Long],
      throttledFetches: Option[Long],
      lockstepShare: Double,
      maxMsBehindLatest: Seq[Long])

  final case class Run(
      readers: String,
      queries: Int,
      options: Map[String, String],
      seconds: Int,
      each: Seq[Reader],
      getRecords: Long,
      getRecordsThrottled: Long,
      warnLines: Long,
      rateLimitWarnLines: Long,
      throttlingLines: Long)

  private val RecordBytes = 1000

  /** The enhanced fan-out query beside the polling ones: its consumer's own 2 MB a second a shard. */
  private val EfoOptions = Map("consumerMode" -> "efo", "consumerName" -> "shared-efo")

  def main(args: Array[String]): Unit = {
    val counts = args.lift(0).map(_.split(',').map(_.trim.toInt).toSeq).getOrElse(Seq(1, 2, 3))
    val seconds = args.lift(1).map(_.toInt).getOrElse(60)
    val shards = args.lift(2).map(_.toInt).getOrElse(4)
    val backlog = args.lift(3).map(_.toLong).getOrElse(2000L)
    val puts = args.lift(4).map(_.toInt).getOrElse(50)
    val kinesis = SyntheticKinesis.start()
    CallLog.install()
    val spark = BenchKinesis.spark(cores = 2)
    spark.sparkContext.setLogLevel("INFO")
    try {
      val runs = counts.flatMap { n =>
        val sized = Map("minFetchPeriod" -> s"${200 * n + 10}ms", "maxFetchRate" -> f"${2.0 / n}%.2f")
        Seq(
          run(kinesis, spark, "connector, default options", n, Map.empty, seconds, shards, backlog, puts),
          run(kinesis, spark, s"connector, sized for $n", n, sized, seconds, shards, backlog, puts),
          run(
            kinesis,
            spark,
            s"connector, sized for $n, and efo",
            n,
            sized,
            seconds,
            shards,
            backlog,
            puts,
            efo = true),
          run(kinesis, spark, s"plain SDK, ${200 * n} ms", n, Map.empty, seconds, shards, backlog, puts, sdk = true)
        )
      }
      report(runs, s"dev/bench shared ${counts.mkString(",")} $seconds $shards $backlog $puts", shards, backlog, puts)
    } finally {
      spark.stop()
      kinesis.close()
    }
  }

  def run(
      kinesis: SyntheticKinesis,
      spark: SparkSession,
      label: String,
      n: Int,
      options: Map[String, String],
      seconds: Int,
      shards: Int,
      backlogPerShard: Long,
      putsPerShard: Int,
      sdk: Boolean = false,
      efo: Boolean = false): Run = {
    val stream = s"shared-$n-${java.util.UUID.randomUUID().toString.take(8)}"
    kinesis.create(StreamSpec(stream, shards, backlogPerShard, recordBytes = RecordBytes, limits = true))
    println(s"$label: $n reader(s) of $stream for $seconds s")
    val callsBefore = kinesis.callCounts
    val logs = new LogCounter
    val startedAt = System.currentTimeMillis()
    val writer = new SteadyWriter(kinesis, stream, putsPerShard * shards, RecordBytes)
    val backlog = backlogPerShard * shards
    val sdkReaders = if (sdk) Some(new SdkReaders(kinesis, stream, shards, n, 200L * n)) else None
    val queries =
      if (sdk) Seq.empty
      else
        startQueries(spark, kinesis, stream, n, options) ++
          (if (efo) startQueries(spark, kinesis, stream, 1, EfoOptions, first = n + 1) else Nil)
    val readLogs = sdkReaders.fold(queries.map(_._2))(_.logs)
    Thread.sleep(seconds * 1000L)
    writer.close()
    val writtenUntil = System.currentTimeMillis()
    val expected = backlog + writer.records
    val deadline = System.currentTimeMillis() + 60000
    while (readLogs.exists(_.distinct < expected) && System.currentTimeMillis() < deadline) Thread.sleep(100)
    val byQuery = queries.map { case (q, _) =>
      val progress = q.recentProgress.toSeq
      val metrics =
        Option(q.lastProgress).map(_.sources.head.metrics.asScala.toMap).getOrElse(Map.empty[String, String])
      (
        q.runId.toString,
        metrics,
        progress.flatMap(p => Option(p.sources.head.metrics.get("maxMsBehindLatest"))).map(_.toLong))
    }
    queries.foreach(_._1.stop())
    sdkReaders.foreach(_.close())
    val sdkCalls = sdkReaders.toSeq.flatMap(r => r.logs.indices.map(i => r.calls(i).get -> r.throttled(i).get))
    val callsAfter = kinesis.callCounts
    logs.close()
    def delta(key: String) = callsAfter.getOrElse(key, 0L) - callsBefore.getOrElse(key, 0L)
    val calls = byQuery.map { case (runId, _, _) =>
      CallLog.of(runId).filter(c => c.atMs >= startedAt && c.atMs < writtenUntil)
    }
    val each = readLogs.indices.map { i =>
      val log = readLogs(i)
      val mine = if (sdk) Seq.empty else calls(i)
      val others = if (sdk) Seq.empty else calls.indices.filter(_ != i).flatMap(calls)
      Reader(
        log.name,
        expected,
        log.distinct,
        log.duplicates,
        log.hadBacklogAt(startedAt, backlog).map(_ - startedAt),
        if (log.distinct >= expected) Some(log.arrivals(0).map(_._2).max - startedAt) else None,
        log.arrivals(startedAt).map { case (arrival, at) => at - arrival },
        if (sdk) sdkCalls(i)._1 else mine.size.toLong,
        if (sdk) sdkCalls(i)._2 else mine.count(_.throttled).toLong,
        if (sdk) None else byQuery(i)._2.get("numAwsRateLimitErrors").map(_.toLong),
        if (sdk) None else byQuery(i)._2.get("numThrottledFetches").map(_.toLong),
        lockstep(mine, others),
        if (sdk) Seq.empty else byQuery(i)._3
      )
    }
    Run(
      label,
      n,
      options,
      seconds,
      each,
      delta("GetRecords"),
      delta("GetRecords throttled"),
      logs.warnLines,
      logs.rateLimitWarnLines,
      logs.throttlingInfoLines)
  }

  /** The share of `mine` made within 50 ms of a call of `others` on the same shard. */
  private def lockstep(mine: Seq[CallLog.Call], others: Seq[CallLog.Call]): Double =
    if (mine.isEmpty || others.isEmpty) 0.0
    else {
      val byShard = others.groupBy(_.shard).map { case (s, c) => s -> c.map(_.atMs).sorted.toArray }
      val close = mine.count { c =>
        byShard.get(c.shard).exists { times =>
          val at = java.util.Arrays.binarySearch(times, c.atMs)
          val i = if (at >= 0) at else -at - 1
          Seq(i - 1, i).exists(j => j >= 0 && j < times.length && math.abs(times(j) - c.atMs) <= 50)
        }
      }
      close.toDouble / mine.size
    }

  // ---- report ----

  private def report(runs: Seq[Run], command: String, shards: Int, backlog: Long, puts: Int): Unit = {
    def ms(v: Option[Long]): String = v.fold("-")(x => f"${x / 1000.0}%.1f s")
    println()
    println(
      "| readers | reader | read once | backlog read in | all read in | put to read p50 / p99 | GetRecords/s | throttled seen | AWS throttling answers | lockstep |")
    println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    runs.foreach { r =>
      r.each.foreach { q =>
        val once =
          if (q.distinct >= q.expected && q.duplicates == 0) "yes"
          else s"${q.distinct} of ${q.expected}, ${q.duplicates} twice"
        println(
          f"| ${r.readers} | ${q.name} | $once | ${ms(q.backlogMillis)} | ${ms(q.doneMillis)} | " +
            f"${ms(percentile(q.latencies, 50))} / ${ms(percentile(q.latencies, 99))} | ${q.calls.toDouble / r.seconds}%.2f | " +
            f"${q.seenThrottled} | ${q.awsRateLimitErrors.fold("-")(_.toString)} | ${q.lockstepShare * 100}%.0f %% |")
      }
      println(
        f"|  | Kinesis: ${r.getRecords} GetRecords, ${r.getRecordsThrottled} throttled (${r.getRecordsThrottled.toDouble / r.seconds}%.1f/s); " +
          s"connector WARN lines ${r.warnLines} (Hit rate limit ${r.rateLimitWarnLines}), lines on throttling ${r.throttlingLines} |")
    }
    def json(v: Option[Long]): String = v.fold("null")(_.toString)
    val body = runs
      .map { r =>
        val readers = r.each
          .map { q =>
            s"""        {"reader": "${q.name}", "expected": ${q.expected}, "distinct": ${q.distinct}, "duplicates": ${q.duplicates}, """ +
              s""""backlogReadMillis": ${json(q.backlogMillis)}, "allReadMillis": ${json(q.doneMillis)}, """ +
              s""""putToReadP50Millis": ${json(percentile(q.latencies, 50))}, "putToReadP99Millis": ${json(
                  percentile(q.latencies, 99))}, """ +
              f""""getRecordsPerSecond": ${q.calls.toDouble / r.seconds}%.2f, "throttledSeen": ${q.seenThrottled}, """ +
              s""""numAwsRateLimitErrors": ${json(q.awsRateLimitErrors)}, "numThrottledFetches": ${json(
                  q.throttledFetches)}, """ +
              f""""lockstepShare": ${q.lockstepShare}%.3f, "maxMsBehindLatestP50": ${json(
                  percentile(q.maxMsBehindLatest, 50))}, """ +
              s""""maxMsBehindLatestMax": ${json(BenchKinesis.largest(q.maxMsBehindLatest))}}"""
          }
          .mkString(",\n")
        val options = r.options.map { case (k, v) => "\"" + k + "\": \"" + v + "\"" }.mkString(", ")
        s"""    {"readers": "${r.readers}", "count": ${r.queries}, "options": {$options}, "seconds": ${r.seconds},\n""" +
          s"""      "getRecords": ${r.getRecords}, "getRecordsThrottled": ${r.getRecordsThrottled}, "warnLines": ${r.warnLines}, """ +
          s""""rateLimitWarnLines": ${r.rateLimitWarnLines}, "throttlingLogLines": ${r.throttlingLines},\n""" +
          s"""      "each": [\n$readers\n      ]}"""
      }
      .mkString(",\n")
    BenchKinesis.saveResults(
      "shared-limits-benchmark.json",
      command,
      "synthetic Kinesis in the benchmark's JVM, Kinesis' limits on",
      Seq(
        s""""stream": {"shards": $shards, "backlogPerShard": $backlog, "recordBytes": $RecordBytes, "putsPerShardPerSecond": $puts}""",
        s""""runs": [\n$body\n  ]"""
      )
    )
  }
}
