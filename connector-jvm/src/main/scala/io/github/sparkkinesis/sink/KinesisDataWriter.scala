// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.{ExecutorService, TimeUnit}

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.config.KinesisSinkConfig
import io.github.sparkkinesis.shims.TaskRowsWriter
import io.github.sparkkinesis.util.{Clock, DaemonThreads}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.write.WriterCommitMessage
import org.slf4j.LoggerFactory

/**
 * What a writing task reports when it commits: its counts, summed by the driver. The driver reads them as a
 * JDK `Supplier` of a `long[]`, so that they reach it whichever class loader defined this class on either
 * side (with "user classpath first" settings, or jars added at run time, there can be two).
 */
private[sparkkinesis] final case class KinesisWriterCommit(counts: WriteCounts)
    extends WriterCommitMessage
    with java.util.function.Supplier[Array[Long]] {
  override def get(): Array[Long] = counts.toArray
}

/**
 * Writes one task's rows to Kinesis. Each row is checked before anything of it is sent
 * ([[RecordChecks]]), packed into KPL aggregates when the sink aggregates ([[RecordAggregator]]), and
 * sent by a [[RecordSender]] with at most `maxInFlightRequests` requests under way. `writeRows` and
 * `commit` return once every record is written, or fail the task. Rows that wait for a full request are
 * sent at the latest [[KinesisDataWriter.MaxBufferedMs]] after the first of them, as the KPL does by
 * default: in real-time mode a task writes for minutes, each row as it arrives. Runs in one task on an
 * executor; the timed sends come from a thread of their own.
 *
 * @param task names the task in logs and errors, e.g. "partition 3 of epoch 7"
 */
private[sparkkinesis] final class KinesisDataWriter(
    config: KinesisSinkConfig,
    columns: SinkColumns,
    api: KinesisApi,
    clock: Clock,
    task: String)
    extends TaskRowsWriter {
  private val log = LoggerFactory.getLogger(getClass)
  private val startedAt = System.nanoTime()

  private val requests: ExecutorService = DaemonThreads.fixedPool("kinesis-put", config.maxInFlightRequests)
  private val sender =
    new RecordSender(
      api,
      SendSettings(config.maxInFlightRequests, config.retryTimeoutMs, config.outageTimeoutMs),
      clock,
      requests,
      task)
  private val aggregator = config.aggregateMaxBytes.map { maxBytes =>
    new RecordAggregator(maxBytes, stream => ShardMap.shared(api, stream, clock), sender.add)
  }
  private var rows = 0L
  private var skipped = 0L

  /** The largest record a stream takes, asked only of a record over 1 MiB: see [[RecordChecks.check]]. */
  private val recordLimit = (stream: String, size: Long) => StreamRecordLimits.forRecord(api, stream, size, clock)

  /** Guards what is buffered: rows come on the task's thread, timed sends on [[KinesisDataWriter.timer]]'s. */
  private val lock = new Object

  /** When the first row buffered since the last send came (System.nanoTime), or -1 when none waits. */
  private var bufferedSince = -1L

  private val timedSends = KinesisDataWriter.timer.scheduleWithFixedDelay(
    () => sendIfDue(),
    KinesisDataWriter.CheckEveryMs,
    KinesisDataWriter.CheckEveryMs,
    TimeUnit.MILLISECONDS)

  override def write(row: InternalRow): Unit = lock.synchronized {
    if (bufferedSince < 0) bufferedSince = System.nanoTime()
    rows += 1
    val partitionKey = string(row, columns.partitionKey)
    def described = RecordChecks.describe(rows, task, partitionKey)
    val stream = RecordChecks.stream(columns.stream.flatMap(i => Option(string(row, i))), config.stream, described)
    val data =
      if (row.isNullAt(columns.data)) null
      else if (columns.dataIsString) row.getUTF8String(columns.data).getBytes
      else row.getBinary(columns.data)
    val hashKey = columns.explicitHashKey.flatMap(i => Option(string(row, i)))
    RecordChecks.check(stream, partitionKey, data, hashKey, config.nullData, described, recordLimit) match {
      case None => skipped += 1
      case Some(record) => aggregator.fold(sender.add(stream, record, 1, rows))(_.add(stream, record, rows))
    }
  }

  /**
   * A task's rows, all sent before this returns: Spark 4 reads the task's metrics right after, before it
   * commits, so they then count every record the task writes.
   */
  override def writeRows(rows: java.util.Iterator[InternalRow]): Unit = {
    while (rows.hasNext) write(rows.next())
    sendAll()
  }

  override def commit(): WriterCommitMessage = {
    sendAll()
    KinesisWriterCommit(counts)
  }

  private def sendAll(): Unit = lock.synchronized {
    aggregator.foreach(_.flush())
    sender.flush()
    bufferedSince = -1
  }

  /**
   * Sends what has waited [[KinesisDataWriter.MaxBufferedMs]], without waiting for the answers: a failed
   * request fails the task at its next row or at its commit, as any other.
   */
  private def sendIfDue(): Unit = lock.synchronized {
    if (bufferedSince >= 0 && System.nanoTime() - bufferedSince >= KinesisDataWriter.MaxBufferedMs * 1000000L) {
      try {
        aggregator.foreach(_.flush())
        sender.sendPending()
      } catch {
        case NonFatal(e) => log.debug(s"A timed send of $task failed; the task's next row or commit reports it: $e")
      }
      bufferedSince = -1
    }
  }

  override def abort(): Unit =
    log.warn(
      s"Writing $task to Kinesis failed after ${sender.counters.rows.get} of $rows rows were written; they stay " +
        "in Kinesis, and Spark writes the task again (delivery is at least once)")

  override def currentMetricsValues(): Array[CustomTaskMetric] = KinesisWriteMetrics.taskValues(counts)

  override def close(): Unit = {
    timedSends.cancel(false)
    requests.shutdownNow()
    val c = counts
    log.info(
      s"Wrote $task: rows=${c.rows} kinesisRecords=${c.kinesisRecords} bytes=${c.bytes} retried=${c.retried} " +
        s"throttledRequests=${c.throttled} skipped=${c.skipped} ms=${(System.nanoTime() - startedAt) / 1000000}")
  }

  private def counts: WriteCounts = WriteCounts.of(sender.counters, skipped)

  private def string(row: InternalRow, ordinal: Int): String =
    if (row.isNullAt(ordinal)) null else row.getUTF8String(ordinal).toString
}

private[sparkkinesis] object KinesisDataWriter {

  /** The longest a row waits for a full request before it is sent anyway (the KPL's RecordMaxBufferedTime). */
  val MaxBufferedMs = 100L

  /** How often each writer looks whether its rows have waited that long. */
  private val CheckEveryMs = 20L

  /** Sends the rows of every writer of this JVM that waited too long. */
  private lazy val timer = DaemonThreads.scheduler("kinesis-put-timer")
}
