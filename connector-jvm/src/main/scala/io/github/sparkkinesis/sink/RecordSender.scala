package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{Callable, ExecutorService, Future, Semaphore}
import java.util.concurrent.atomic.AtomicLong

import scala.collection.mutable

import io.github.sparkkinesis.client.{KinesisApi, KinesisApiException, PutRecord}
import io.github.sparkkinesis.errors.{KinesisConnectorException, KinesisErrors}
import io.github.sparkkinesis.fetch.Backoff
import io.github.sparkkinesis.util.Clock

/**
 * How a writing task sends records.
 *
 * @param maxInFlight      PutRecords requests of one task under way at once
 * @param retryDeadlineMs  how long a request's failed records are tried again before the task fails
 */
final case class SendSettings(maxInFlight: Int, retryDeadlineMs: Long)

/**
 * What a task has sent, for the sink's metrics: Kinesis records and the rows in them (more than one per
 * KPL aggregated record), their data's bytes, records sent again and requests Kinesis throttled.
 * Thread-safe.
 */
final class SendCounters {
  val records = new AtomicLong()
  val rows = new AtomicLong()
  val bytes = new AtomicLong()
  val retriedRecords = new AtomicLong()
  val throttledRequests = new AtomicLong()
}

/**
 * Sends one writing task's records to Kinesis with PutRecords: packed per stream into requests of at most
 * 500 records and 5 MiB, at most `maxInFlight` requests under way, and the records Kinesis turns down
 * (throttled, or an internal failure) sent again after a jittered, growing pause until
 * `retryDeadlineMs` has passed since the request was first sent. Then, or at once for a failure that
 * retrying cannot cure (a stream that does not exist, access denied), the task fails with how many records
 * were not written and why: a record is never dropped without an error. Records may be written twice when
 * a request's answer is lost and it is sent again (delivery is at least once).
 *
 * Used by one task's thread; the requests run on `requests`.
 */
final class RecordSender(
    api: KinesisApi,
    settings: SendSettings,
    clock: Clock,
    requests: ExecutorService,
    val counters: SendCounters = new SendCounters) {
  import RecordSender._

  private val pending = mutable.LinkedHashMap.empty[String, Pending]
  private val slots = new Semaphore(settings.maxInFlight)
  private val underWay = mutable.ArrayBuffer.empty[Future[Unit]]

  /**
   * Adds a record (checked already: see [[RecordChecks]]) that carries `rows` rows; sends its stream's
   * request once it is full.
   */
  def add(stream: String, record: PutRecord, rows: Int = 1): Unit = {
    collectFinished()
    val size = sizeOf(record)
    if (pending.get(stream).exists(b => b.records.size == MaxRecordsPerRequest || b.bytes + size > MaxBytesPerRequest))
      send(stream)
    val batch = pending.getOrElseUpdate(stream, new Pending)
    batch.records += Entry(record, rows)
    batch.bytes += size
  }

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

  /** One request, and its failed records again until they are written or the deadline passes. */
  private def deliver(stream: String, records: Vector[Entry]): Unit = {
    val deadline = clock.nowMillis() + settings.retryDeadlineMs
    val backoff = new Backoff(RetryMinMs, RetryMaxMs, clock)
    var left = records
    var attempts = 0
    var lastErrors = Map.empty[String, Int]
    while (left.nonEmpty) {
      attempts += 1
      val failed =
        try {
          val results = api.putRecords(stream, left.map(_.record))
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
          case e @ (_: KinesisApiException.Failed | _: KinesisApiException.Unreachable) =>
            lastErrors = Map(s"request failed: ${e.getMessage}" -> left.size)
            left
          case e: KinesisApiException.AccessDenied => throw KinesisErrors.accessDenied(e.action, stream, api.target, e)
          case e: KinesisApiException.CredentialsUnavailable =>
            throw KinesisErrors.credentialsUnavailable(api.target, e)
          case e: KinesisApiException => throw writeFailed(stream, records.size, left.size, attempts, e.getMessage, e)
        }
      if (failed.nonEmpty) {
        if (clock.nowMillis() >= deadline) {
          val reasons = lastErrors.toSeq.sortBy(-_._2).map { case (why, n) => s"$n: $why" }.mkString("; ")
          throw writeFailed(stream, records.size, failed.size, attempts, reasons, null)
        }
        counters.retriedRecords.addAndGet(failed.size.toLong)
        backoff.sleep()
      }
      left = failed
    }
  }
}

object RecordSender {

  /** PutRecords' limits per request. */
  val MaxRecordsPerRequest = 500
  val MaxBytesPerRequest: Long = 5L * 1024 * 1024

  private val RetryMinMs = 100L
  private val RetryMaxMs = 5000L
  private val Throttled = "ProvisionedThroughputExceededException"

  /** A record's size as Kinesis counts it against its limits: data and partition key. */
  def sizeOf(record: PutRecord): Long = record.data.length.toLong + record.partitionKey.getBytes(UTF_8).length

  private def writeFailed(
      stream: String,
      total: Int,
      failed: Int,
      attempts: Int,
      why: String,
      cause: Throwable): KinesisConnectorException =
    new KinesisConnectorException(
      "KINESIS_WRITE_FAILED",
      s"$failed of $total records could not be written to stream '$stream' after $attempts attempts ($why). " +
        "The records before them in this task may have been written; Spark retries the task, so a sink " +
        "whose readers must not see duplicates should carry a key to deduplicate on.",
      cause
    )

  private final case class Entry(record: PutRecord, rows: Int)

  private final class Pending {
    val records = mutable.ArrayBuffer.empty[Entry]
    var bytes = 0L
  }

}
