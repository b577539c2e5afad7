// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.lang.management.{ManagementFactory, MemoryType}
import java.nio.file.Files
import java.util.concurrent.ConcurrentLinkedQueue
import javax.management.{Notification, NotificationEmitter, NotificationListener}
import javax.management.openmbean.CompositeData

import scala.jdk.CollectionConverters._

import com.sun.management.GarbageCollectionNotificationInfo
import io.github.sparkkinesis.bench.synthetic.SyntheticKinesisProcess
import io.github.sparkkinesis.testing.SparkActivity
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{count, countDistinct, max, min}

/**
 * Memory under a burst: streams that hold five and ten times `fetchBufferSize` when the query starts, on a
 * synthetic Kinesis without limits in a JVM of its own (so that only Spark and the connector are on the heap
 * measured), each read from TRIM_HORIZON on `local[2]` by a query with the default options and trigger into
 * a `foreachBatch` sink, in a small heap (`dev/bench memory` runs it with -Xmx768m) whose storage memory is
 * smaller than the buffer, so that prefetched blocks must go to disk.
 *
 * Every 100 ms it samples the heap in use, Spark's storage memory in use, the prefetched blocks' bytes on
 * disk (as Spark's block updates report them), the bytes prefetched and not committed (the source's metric)
 * and the rows read; after each garbage collection, the heap still in use. The sink counts each shard's record numbers
 * per batch, and the run fails unless every record arrived exactly once. The peak heap after a collection
 * is set against a bound from the design, above the heap in use before the query:
 *  - a prefetch job's tasks hold at most the room left in `fetchBufferSize`
 *    ([[io.github.sparkkinesis.prefetch.PrefetchTask]]), and storing them as blocks copies them once more
 *    while it lasts: twice the buffer;
 *  - each prefetch thread has a GetRecords answer in flight as a task reaches its share: the answer's bytes,
 *    the records parsed from them, and their copy in the block: three times the largest answer;
 *  - a batch's reader holds the block it reads whole, one per core; a block is what one task read of one
 *    shard, here about one answer;
 *  - blocks kept in memory: at most Spark's storage memory (the rest are on disk).
 * A bound that holds for both bursts does not grow with the backlog.
 * Prints a summary, writes bench/results/memory-benchmark.json and a chart, memory-benchmark.svg.
 * Usage: dev/bench memory [bufferMegabytes=64] [shards=8] [recordBytes=1000]
 */
object MemoryBenchmark {
  private val MiB = 1024L * 1024

  /** The largest answer of one GetRecords call: Kinesis' 10 MiB (the default 10,000 records may be less). */
  private val MaxAnswerBytes = 10 * MiB

  /** Shards a prefetch task reads at once, by default (`shardsPerTask`). */
  private val DefaultShardsPerTask = 5

  /** The bursts, in times `fetchBufferSize`. */
  val Bursts: Seq[Int] = Seq(5, 10)

  final case class Sample(
      atMillis: Long,
      heapUsed: Long,
      storageUsed: Long,
      blocksOnDisk: Long,
      prefetched: Long,
      rows: Long)

  final case class Result(
      bufferBytes: Long,
      burstBytes: Long,
      shards: Int,
      recordBytes: Int,
      records: Long,
      millis: Long,
      heapMax: Long,
      storageMemory: Long,
      baseline: Long,
      bound: Long,
      samples: Seq[Sample],
      afterGc: Seq[(Long, Long)],
      blocksSpilled: Int,
      batches: Int) {
    def peakAfterGc: Long = if (afterGc.isEmpty) 0L else afterGc.map(_._2).max
    def peakUsed: Long = if (samples.isEmpty) 0L else samples.map(_.heapUsed).max
    def peakOf(value: Sample => Long): Long = if (samples.isEmpty) 0L else samples.map(value).max
  }

  def main(args: Array[String]): Unit = {
    val bufferMegabytes = args.lift(0).map(_.toInt).getOrElse(64)
    val shards = args.lift(1).map(_.toInt).getOrElse(8)
    val recordBytes = args.lift(2).map(_.toInt).getOrElse(1000)
    val spark = session()
    try {
      val results = run(spark, bufferMegabytes * MiB, shards, recordBytes, Bursts)
      report(results, s"dev/bench memory $bufferMegabytes $shards $recordBytes")
    } finally spark.stop()
  }

  /** A local session of two cores whose storage memory is small: a twentieth of the usable heap. */
  def session(): SparkSession =
    SparkSession
      .builder()
      .master("local[2]")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.driver.host", "127.0.0.1")
      .config("spark.memory.fraction", "0.05")
      .getOrCreate()

  /** One burst of each size in `bursts` (times `bufferBytes`), read one after the other. */
  def run(spark: SparkSession, bufferBytes: Long, shards: Int, recordBytes: Int, bursts: Seq[Int]): Seq[Result] = {
    val streams = bursts.map { times =>
      val perShard = math.max(1L, times * bufferBytes / recordBytes / shards)
      (s"memory-$times-${java.util.UUID.randomUUID().toString.take(8)}", shards, perShard, recordBytes)
    }
    val kinesis = new SyntheticKinesisProcess(streams)
    try
      streams.zip(bursts).map { case ((name, _, perShard, _), times) =>
        runBurst(spark, kinesis.connectorOptions, name, bufferBytes, times * bufferBytes, shards, perShard, recordBytes)
      }
    finally kinesis.close()
  }

  private def runBurst(
      spark: SparkSession,
      connectorOptions: Map[String, String],
      name: String,
      bufferBytes: Long,
      burstBytes: Long,
      shards: Int,
      perShard: Long,
      recordBytes: Int): Result = {
    val storageMemory = spark.sparkContext.getExecutorMemoryStatus.values.map(_._1).sum
    val baseline = heapAfterCollection()
    val answer = math.min(MaxAnswerBytes, 10000L * recordBytes)
    val prefetchSlots = math.max(1, spark.sparkContext.defaultParallelism / 2) // PrefetchJobs.slots
    val threads = math.min(shards, DefaultShardsPerTask * prefetchSlots)
    val cores = spark.sparkContext.defaultParallelism
    val bound = baseline + storageMemory + 2 * bufferBytes + 3 * threads * answer + cores * answer

    val activity = SparkActivity.watch(spark)
    val gc = new AfterCollections
    val ranges = new ConcurrentLinkedQueue[(String, Long, Long, Long, Long)]() // shard, first, last, rows, distinct
    val rows = new java.util.concurrent.atomic.AtomicLong()
    val startedAt = System.currentTimeMillis()
    val query = spark.readStream
      .format("kinesis")
      .options(connectorOptions)
      .option("streamName", name)
      .option("initialPosition", "trim_horizon")
      .option("fetchBufferSize", s"${bufferBytes / MiB}mb")
      .load()
      .selectExpr("shardId", "CAST(substring(sequenceNumber, 9) AS BIGINT) AS n")
      .writeStream
      .option("checkpointLocation", Files.createTempDirectory("bench-checkpoint").toString)
      .foreachBatch { (batch: DataFrame, _: Long) =>
        batch
          .groupBy("shardId")
          .agg(min("n"), max("n"), count("n"), countDistinct("n"))
          .collect()
          .foreach { r =>
            ranges.add((r.getString(0), r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4)))
            rows.addAndGet(r.getLong(3))
          }
      }
      .start()
    val samples = Vector.newBuilder[Sample]
    val memory = ManagementFactory.getMemoryMXBean
    val total = perShard * shards
    val deadline = startedAt + 900000L
    try {
      while (rows.get < total && System.currentTimeMillis() < deadline && query.isActive) {
        val blocks = activity.liveBlocks.values
        val prefetched = Option(query.lastProgress)
          .flatMap(p => Option(p.sources.head.metrics.get("totalPrefetchedBytes")))
          .map(_.toLong)
          .getOrElse(0L)
        val storageUsed = spark.sparkContext.getExecutorMemoryStatus.values.map { case (max, free) => max - free }.sum
        samples += Sample(
          System.currentTimeMillis() - startedAt,
          memory.getHeapMemoryUsage.getUsed,
          storageUsed,
          blocks.map(_.diskSize).sum,
          prefetched,
          rows.get)
        Thread.sleep(100)
      }
      query.exception.foreach(e => throw e)
    } finally {
      query.stop()
      gc.close()
      spark.sparkContext.removeSparkListener(activity)
    }
    val millis = System.currentTimeMillis() - startedAt
    checkEveryRecordOnce(ranges.asScala.toSeq, shards, perShard)
    Result(
      bufferBytes,
      burstBytes,
      shards,
      recordBytes,
      total,
      millis,
      memory.getHeapMemoryUsage.getMax,
      storageMemory,
      baseline,
      bound,
      samples.result(),
      gc.afterEach.asScala.toSeq.map { case (at, used) => (at - startedAt, used) }.filter(_._1 >= 0),
      activity.blocksSpilled,
      query.recentProgress.count(_.numInputRows > 0)
    )
  }

  /**
   * Each shard's batches, in order, cover its records 0 until `perShard` with no gap and no overlap, and
   * each batch holds each of its records once (as many rows, and distinct numbers, as from its first to its
   * last).
   */
  private def checkEveryRecordOnce(ranges: Seq[(String, Long, Long, Long, Long)], shards: Int, perShard: Long): Unit = {
    val byShard = ranges.groupBy(_._1)
    require(byShard.size == shards, s"rows of ${byShard.size} shards of $shards")
    byShard.foreach { case (shard, batches) =>
      var next = 0L
      batches.sortBy(_._2).foreach { case (_, first, last, rows, distinct) =>
        require(first == next, s"$shard: records from $first where $next was expected (lost or repeated)")
        require(
          rows == last - first + 1 && distinct == rows,
          s"$shard: $rows rows, $distinct distinct, for records $first to $last")
        next = last + 1
      }
      require(next == perShard, s"$shard: records up to ${next - 1} of ${perShard - 1}")
    }
  }

  /** The heap in use once a collection has run. */
  private def heapAfterCollection(): Long = {
    System.gc()
    Thread.sleep(200)
    ManagementFactory.getMemoryMXBean.getHeapMemoryUsage.getUsed
  }

  /** Listens to every garbage collector: when each collection ended, and the heap in use after it. */
  private final class AfterCollections extends NotificationListener with AutoCloseable {
    val afterEach = new ConcurrentLinkedQueue[(Long, Long)]()
    private val heapPools =
      ManagementFactory.getMemoryPoolMXBeans.asScala.filter(_.getType == MemoryType.HEAP).map(_.getName).toSet
    private val emitters =
      ManagementFactory.getGarbageCollectorMXBeans.asScala.collect { case e: NotificationEmitter => e }
    private val jvmStart = ManagementFactory.getRuntimeMXBean.getStartTime
    emitters.foreach(_.addNotificationListener(this, null, null))

    override def handleNotification(notification: Notification, handback: Any): Unit =
      if (notification.getType == GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION) {
        val info =
          GarbageCollectionNotificationInfo.from(notification.getUserData.asInstanceOf[CompositeData]).getGcInfo
        val used = info.getMemoryUsageAfterGc.asScala.collect {
          case (pool, usage) if heapPools(pool) => usage.getUsed
        }.sum
        afterEach.add((jvmStart + info.getEndTime) -> used)
      }

    override def close(): Unit = emitters.foreach(e => e.removeNotificationListener(this))
  }

  // ---- report ----

  private def mib(bytes: Long): String = s"${bytes / MiB} MiB"

  private def report(results: Seq[Result], command: String): Unit = {
    results.foreach { r =>
      println(
        s"A burst of ${mib(r.burstBytes)} (${r.records} records of ${r.recordBytes} B on ${r.shards} shards), " +
          s"fetchBufferSize ${mib(r.bufferBytes)}: read in ${r.millis} ms, ${r.batches} batches with rows")
      println(
        s"  heap: max ${mib(r.heapMax)}, Spark's storage memory ${mib(r.storageMemory)}, in use before the query " +
          s"${mib(r.baseline)}")
      println(
        s"  peak heap in use after a collection ${mib(r.peakAfterGc)} (bound ${mib(r.bound)}: " +
          s"${if (r.peakAfterGc <= r.bound) "within" else "OVER"}); peak in use at any sample ${mib(r.peakUsed)}")
      println(
        s"  prefetched blocks: ${r.blocksSpilled} went to disk; peak storage memory in use ${mib(r.peakOf(_.storageUsed))}, " +
          s"peak on disk ${mib(r.peakOf(_.blocksOnDisk))}; peak prefetched and uncommitted ${mib(r.peakOf(_.prefetched))}; " +
          "every record read exactly once")
    }
    def json(r: Result): String = {
      val samples = r.samples
        .map(s => s"[${s.atMillis}, ${s.heapUsed}, ${s.storageUsed}, ${s.blocksOnDisk}, ${s.prefetched}, ${s.rows}]")
        .grouped(6)
        .map(_.mkString(", "))
        .mkString(",\n        ")
      val afterGc = r.afterGc.map { case (at, used) => s"[$at, $used]" }.grouped(8).map(_.mkString(", "))
      s"""    {"burstBytes": ${r.burstBytes}, "records": ${r.records}, "millis": ${r.millis}, "batches": ${r.batches},\n""" +
        s"""      "heapBeforeBytes": ${r.baseline}, "peakHeapAfterGcBytes": ${r.peakAfterGc}, "boundBytes": ${r.bound}, """ +
        s""""peakHeapUsedBytes": ${r.peakUsed},\n""" +
        s"""      "blocksSpilled": ${r.blocksSpilled}, "peakStorageMemoryUsedBytes": ${r.peakOf(_.storageUsed)}, """ +
        s""""peakBlocksOnDiskBytes": ${r.peakOf(_.blocksOnDisk)}, "peakPrefetchedBytes": ${r.peakOf(
            _.prefetched)},\n""" +
        s"""      "heapAfterGc": [${afterGc.mkString(",\n        ")}],\n""" +
        s"""      "samples": [$samples]}"""
    }
    val first = results.head
    BenchKinesis.saveResults(
      "memory-benchmark.json",
      command,
      "synthetic Kinesis in a JVM of its own, Kinesis' limits off",
      Seq(
        s""""fetchBufferBytes": ${first.bufferBytes}, "shards": ${first.shards}, "recordBytes": ${first.recordBytes}, """ +
          s""""heapMaxBytes": ${first.heapMax}, "storageMemoryBytes": ${first.storageMemory}""",
        """"samplesColumns": ["millis", "heapUsed", "storageMemoryUsed", "blocksOnDisk", "prefetchedUncommitted", "rows"]""",
        s""""bursts": [\n${results.map(json).mkString(",\n")}\n  ]"""
      )
    )
    SvgChart.save("memory-benchmark.svg", chart(results.last))
  }

  /** The heap and the blocks over the time of one burst, with the bound and the buffer. */
  private def chart(r: Result): String = {
    def mib(bytes: Long): Double = bytes.toDouble / MiB
    def series(name: String, color: String)(value: Sample => Long): SvgChart.Series =
      SvgChart.Series(name, r.samples.map(s => (s.atMillis / 1000.0, mib(value(s)))), color)
    val end = if (r.samples.isEmpty) 0.0 else r.samples.last.atMillis / 1000.0
    def level(name: String, bytes: Long, color: String) =
      SvgChart.Series(name, Seq((0.0, mib(bytes)), (end, mib(bytes))), color, dashed = true)
    SvgChart.lines(
      s"A burst of ${r.burstBytes / MiB} MiB, fetchBufferSize ${r.bufferBytes / MiB} MiB, -Xmx${r.heapMax / MiB}m",
      "seconds from start()",
      "MiB",
      Seq(
        series("heap in use", "#999999")(_.heapUsed),
        SvgChart.Series("heap after a GC", r.afterGc.map { case (at, used) => (at / 1000.0, mib(used)) }, "#d62728"),
        series("blocks on disk", "#1f77b4")(_.blocksOnDisk),
        series("storage memory used", "#2ca02c")(_.storageUsed),
        series("uncommitted", "#ff7f0e")(_.prefetched),
        level("bound", r.bound, "#d62728"),
        level("fetchBufferSize", r.bufferBytes, "#1f77b4")
      )
    )
  }
}
