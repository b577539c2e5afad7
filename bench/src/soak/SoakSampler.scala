// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import java.io.File

import scala.collection.mutable
import scala.util.Try

import com.fasterxml.jackson.databind.ObjectMapper
import io.github.sparkkinesis.bench.BenchKinesis

/** One query at a sample: what its user would watch. */
private[soak] final case class QuerySample(
    checkpointBytes: Long,
    recordsRead: Long,
    notYetRead: Long,
    latencyP50Millis: Option[Long],
    latencyP99Millis: Option[Long],
    maxMsBehindLatest: Option[Long],
    rateLimitErrors: Option[Long])

/**
 * The soak at one moment (ms from its start): the heap the driver and the executors kept after their last
 * collections (of executors, the largest), their threads (of executors, the most), the executors alive,
 * Spark's storage memory in use (the prefetched blocks), the open subscriptions, and each query's figures.
 */
private[soak] final case class SoakSample(
    atMillis: Long,
    driverHeapAfterGc: Option[Long],
    executorHeapAfterGc: Option[Long],
    driverThreads: Option[Int],
    executorThreads: Option[Int],
    executors: Int,
    storageUsed: Option[Long],
    openSubscriptions: Option[Int],
    queries: Map[String, QuerySample])

/**
 * Takes the soak's samples from outside the application: the JVMs' threads and collections
 * ([[JvmGauges]]), the driver's own metrics file, the checkpoints' size, and the rows the sinks wrote since
 * the last sample (their latency, put to row) against the records Kinesis holds (`written`).
 */
private[soak] final class SoakSampler(
    work: File,
    gcLogs: File,
    queries: Seq[SoakQuery],
    written: () => Long,
    openSubscriptions: () => Option[Int] = () => None) {
  private val outputs = queries.map(q => q.name -> new SinkOutput(new File(work, s"output/${q.name}"))).toMap
  private val read = mutable.Map(queries.map(_.name -> 0L): _*)
  private val json = new ObjectMapper()
  private val metricsLines = new AppendedLines(new File(work, "driver-metrics.jsonl"))
  private var lastMetricsLine: Option[String] = None
  private val gcLines = mutable.Map.empty[File, AppendedLines]
  private val heapAfterGc = mutable.Map.empty[File, Long]
  @volatile private var lastWritten = 0L

  /** Whether every query has read as many records as Kinesis held at the last sample. */
  def caughtUp: Boolean = queries.forall(q => read(q.name) >= lastWritten)

  def sample(atMillis: Long, driver: DriverProcess): SoakSample = {
    lastWritten = written()
    val executors = driver.executors.values.toSeq
    val metrics = lastMetrics()
    val perQuery = queries.map { q =>
      val rows = outputs(q.name).newBatches().flatMap(_.rows)
      read(q.name) += rows.size
      val latencies = rows.map(r => r.readAt - r.arrivedAt)
      val progress = metrics.flatMap(m => Option(m.get("queries")).flatMap(qs => Option(qs.get(q.name))))
      def metric(name: String) = progress.flatMap(p => Option(p.get(name))).map(_.asLong).filter(_ >= 0)
      q.name -> QuerySample(
        JvmGauges.bytesBelow(new File(work, s"checkpoints/${q.name}")),
        read(q.name),
        math.max(0L, lastWritten - read(q.name)),
        BenchKinesis.percentile(latencies, 50),
        BenchKinesis.percentile(latencies, 99),
        metric("maxMsBehindLatest"),
        metric("numAwsRateLimitErrors")
      )
    }.toMap
    def lastAfterGc(role: String, pid: Long) = {
      val log = JvmGauges.gcLog(gcLogs, role, pid)
      val appended = gcLines.getOrElseUpdate(log, new AppendedLines(log)).next()
      appended.flatMap(JvmGauges.afterGc).lastOption.foreach(gc => heapAfterGc(log) = gc.heapBytes)
      heapAfterGc.get(log)
    }
    val executorHeaps = executors.flatMap(e => lastAfterGc("executor", e.pid()))
    val executorThreads = executors.flatMap(e => JvmGauges.threads(e.pid()))
    SoakSample(
      atMillis,
      lastAfterGc("driver", driver.pid),
      if (executorHeaps.isEmpty) None else Some(executorHeaps.max),
      JvmGauges.threads(driver.pid),
      if (executorThreads.isEmpty) None else Some(executorThreads.max),
      executors.size,
      metrics.flatMap(m => Option(m.get("storageUsedBytes"))).map(_.asLong),
      openSubscriptions(),
      perQuery
    )
  }

  /** The driver's last metrics line, if it wrote one in the last 10 seconds. */
  private def lastMetrics() = {
    metricsLines.next().lastOption.foreach(line => lastMetricsLine = Some(line))
    lastMetricsLine
      .flatMap(line => Try(json.readTree(line)).toOption)
      .filter(m => System.currentTimeMillis() - m.get("at").asLong < 10000)
  }
}
