// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{Callable, ExecutorService, Future, Semaphore}

import scala.collection.mutable

import io.github.sparkkinesis.client.{ApiFailures, KinesisApi, KinesisApiException, PutRecord}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.health.KinesisHealth
import io.github.sparkkinesis.util.Backoff
import io.github.sparkkinesis.util.Clock

/**
 * Sends one writing task's records to Kinesis with PutRecords: packed per stream into requests of at most 500
 * records and 5 MiB (a larger record goes in a request of its own: Kinesis takes requests of up to 10 MiB, as
 * large as its largest record), at most `maxInFlight` requests under way. What may succeed when sent again is
 * sent again after a jittered, growing pause until `retryDeadlineMs` has passed since the request was first
 * sent: records Kinesis turns down (throttled, or an internal failure) and requests it throttles; then the
 * task fails with how many records were not written and why. While requests fail as a whole because Kinesis
 * cannot be reached or answers with 5xx errors (an outage, [[ApiFailures.outage]]), they are sent again until
 * `outageTimeoutMs`, logged as `health.KinesisHealth` does, then the task fails with `KINESIS_UNAVAILABLE`. A
 * request Kinesis refuses as such (a stream that does not exist, access denied, a value it does not accept, a
 * KMS key it cannot use) fails the task at once, with the error the source gives for the same cause and the
 * row it failed at. A record is never dropped without an error. Records may be written twice when a request's
 * answer is lost and it is sent again (delivery is at least once).
 *
 * Used by one task's thread; the requests run on `requests`.
 *
 * @param task names the task in errors, e.g. "partition 3 of epoch 7"
 */
private[sparkkinesis] final class RecordSender(
    api: KinesisApi,
    settings: SendSettings,
    clock: Clock,
    requests: ExecutorService,
    task: String,
    val counters: SendCounters = new SendCounters) {
  import RecordSender._

  private val health = new KinesisHealth(api.target, task, "write to", settings.outageTimeoutMs, clock)
  private val pending = mutable.LinkedHashMap.empty[String, Pending]
  private val slots = new Semaphore(settings.maxInFlight)
  private val underWay = mutable.ArrayBuffer.empty[Future[Unit]]

  /**
   * Adds a record (checked already: see [[RecordChecks]]) that carries `rows` rows, the first of them the
   * task's row number `firstRow`; sends its stream's request once it is full.
   */
  def add(stream: String, record: PutRecord, rows: Int, firstRow: Long): Unit = {
    collectFinished()
    val size = sizeOf(record)
    if (pending.get(stream).exists(b => b.records.size == MaxRecordsPerRequest || b.bytes + size > MaxBytesPerRequest))
      send(stream)
    val batch = pending.getOrElseUpdate(stream, new Pending)
    batch.records += Entry(record, rows, firstRow)
    batch.bytes += size
  }

  /** Sends what is left without waiting: a failure shows at the next record, or at [[flush]]. */
  def sendPending(): Unit = pending.keys.toSeq.foreach(send)

  /** Sends what is left and waits until every request is done; throws the first failure. */
  def flush(): Unit = {
    pending.keys.toSeq.foreach(send)
    underWay.foreach(await)
    underWay.clear()
  }

  private def send(stream: String): Unit = pending.remove(stream).filter(_.records.nonEmpty).foreach { batch =>
    slots.acquire()
    val records = batch.records.toVector
    underWay += requests.submit(new Callable[Unit] {
      override def call(): Unit =
        try deliver(stream, records)
        finally slots.release()
    })
  }

  /** Waits for requests already done, so a failure shows at the next record rather than at the end. */
  private def collectFinished(): Unit = {
    val (done, running) = underWay.partition(_.isDone)
    done.foreach(await)
    underWay.clear()
    underWay ++= running
  }

  private def await(f: Future[Unit]): Unit =
    try f.get()
    catch { case e: java.util.concurrent.ExecutionException => throw e.getCause }

  /** The row a refused request failed at: the record Kinesis names, else the request's first. */
  private def culprit(entries: Vector[Entry], e: KinesisApiException): String = {
    val named = RecordIndex
      .findFirstMatchIn(String.valueOf(e.getMessage))
      .map(_.group(1).toInt - 1)
      .filter(i => i >= 0 && i < entries.size)
    val entry = entries(named.getOrElse(0))
    val row = RecordChecks.describe(entry.firstRow, task, entry.record.partitionKey)
    if (named.isDefined || entries.size == 1) row else s"$row, the first of the ${entries.size} records of the request"
  }

  /** One request, and its failed records again until they are written or the deadline passes. */
  private def deliver(stream: String, records: Vector[Entry]): Unit = {
    var deadline = clock.nowMillis() + settings.retryDeadlineMs
    var inOutage = false
    val backoff = new Backoff(RetryMinMs, RetryMaxMs, clock)
    var left = records
    var attempts = 0
    var lastErrors = Map.empty[String, Int]
    while (left.nonEmpty) {
      attempts += 1
      val failed =
        try {
          val results = api.putRecords(stream, left.map(_.record))
          health.succeeded(stream)
          if (inOutage) {
            // Records turned down from here on get their whole writeRetryTimeout again.
            inOutage = false
            deadline = clock.nowMillis() + settings.retryDeadlineMs
          }
          val turnedDown = left.zip(results).filterNot(_._2.succeeded)
          if (turnedDown.exists(_._2.errorCode.contains(Throttled))) counters.throttledRequests.incrementAndGet()
          val written = left.zip(results).filter(_._2.succeeded).map(_._1)
          counters.records.addAndGet(written.size.toLong)
          counters.rows.addAndGet(written.iterator.map(_.rows.toLong).sum)
          counters.bytes.addAndGet(written.iterator.map(_.record.data.length.toLong).sum)
          lastErrors = turnedDown.groupBy(_._2.errorCode.getOrElse("unknown")).map { case (k, v) => k -> v.size }
          turnedDown.map(_._1)
        } catch {
          case e: KinesisApiException.Throttled =>
            counters.throttledRequests.incrementAndGet()
            lastErrors = Map(s"request throttled: ${e.getMessage}" -> left.size)
            left
          case e: KinesisApiException if ApiFailures.outage(e) =>
            health.failed(stream, e)
            inOutage = true
            lastErrors = Map(s"request failed: ${e.getMessage}" -> left.size)
            left
          case e: KinesisApiException =>
            throw ApiFailures.toUserFacing(e, "PutRecords", stream, api.target, "write to", Some(culprit(left, e)))
        }
      if (failed.nonEmpty) {
        if (inOutage) health.check()
        else if (clock.nowMillis() >= deadline) {
          val reasons = lastErrors.toSeq.sortBy(-_._2).map { case (why, n) => s"$n: $why" }.mkString("; ")
          throw KinesisErrors.writeFailed(stream, records.size, failed.size, attempts, reasons, null)
        }
        counters.retriedRecords.addAndGet(failed.size.toLong)
        backoff.sleep()
      }
      left = failed
    }
  }
}

private[sparkkinesis] object RecordSender {

  /**
   * How many records, and how many bytes, the records packed in one PutRecords request may take: Kinesis'
   * limits before it took records of up to 10 MiB (and requests as large), which every endpoint accepts.
   */
  val MaxRecordsPerRequest = 500
  val MaxBytesPerRequest: Long = 5L * 1024 * 1024

  private val RetryMinMs = 100L
  private val RetryMaxMs = 5000L
  private val Throttled = "ProvisionedThroughputExceededException"

  /** A record's size as Kinesis counts it against its limits: data and partition key. */
  def sizeOf(record: PutRecord): Long = record.data.length.toLong + record.partitionKey.getBytes(UTF_8).length

  private final case class Entry(record: PutRecord, rows: Int, firstRow: Long)

  /** Kinesis names a record it refuses by its place in the request, counted from 1: "records.3.member...". */
  private val RecordIndex = """records\.(\d+)\.member""".r

  private final class Pending {
    val records = mutable.ArrayBuffer.empty[Entry]
    var bytes = 0L
  }

}
