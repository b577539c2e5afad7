// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import java.util.concurrent.atomic.AtomicLong

import scala.util.control.NonFatal

import io.github.sparkkinesis.util.{Backoff, DaemonThreads, SystemClock}
import org.slf4j.{Logger, LoggerFactory}

/**
 * Sends metric data to CloudWatch without ever making their producer wait: [[offer]] only queues them, in a
 * queue of at most `maxQueued` data, and a daemon thread of its own (`kinesis-cloudwatch-metrics`) sends what
 * is queued, all of it in one PutMetricData while it fits CloudWatch's limits ([[PutMetricDataRequests]]),
 * so one call per progress at most.
 *
 * When CloudWatch cannot be reached, throttles, fails or refuses the credentials, the data stay queued and
 * are sent again after a pause (`retryMinMs`, doubling to `retryMaxMs`); data beyond the queue's bound are
 * dropped, the oldest first. Data CloudWatch refuses themselves are dropped at once. Every datum dropped is
 * counted ([[dropped]]). The first trouble is logged once, at WARN, with its reason; the next line comes
 * when a call succeeds again, with how many data were dropped meanwhile.
 *
 * The thread starts with the first data, and ends once nothing was queued for `idleMs` (the session, or
 * every query, stopped), closing its client; data offered later start another. Driver side; thread-safe.
 */
private[sparkkinesis] final class MetricsPublisher(
    namespace: String,
    newApi: () => CloudWatchApi,
    maxQueued: Int,
    idleMs: Long = MetricsPublisher.IdleMs,
    retryMinMs: Long = MetricsPublisher.RetryMinMs,
    retryMaxMs: Long = MetricsPublisher.RetryMaxMs,
    log: Logger = LoggerFactory.getLogger(classOf[MetricsPublisher])) {

  private val lock = new Object
  private val queue = new java.util.ArrayDeque[MetricDatum]() // guarded by lock
  private var sender = Option.empty[Thread] // guarded by lock
  private var closed = false // guarded by lock
  /** What went wrong first since the last success, once logged; None while all is well. */
  private var trouble = Option.empty[String] // guarded by lock
  private var droppedInTrouble = 0L // guarded by lock
  private val droppedTotal = new AtomicLong()
  private val sentTotal = new AtomicLong()
  private val calls = new AtomicLong()

  /** Queues `data` for the sender; drops the oldest queued beyond the bound. Never blocks on CloudWatch. */
  def offer(data: Seq[MetricDatum]): Unit = if (data.nonEmpty) lock.synchronized {
    if (!closed) {
      var overflow = 0L
      data.foreach { d =>
        if (queue.size >= maxQueued) {
          queue.pollFirst()
          overflow += 1
        }
        queue.addLast(d)
      }
      if (overflow > 0)
        drop(overflow, s"more than $maxQueued data waited to be sent (maxQueuedData)")
      if (!sender.exists(_.isAlive)) sender = Some(DaemonThreads.start(MetricsPublisher.ThreadName)(run()))
      lock.notifyAll()
    }
  }

  /** Data dropped since this publisher was made: beyond the queue's bound, or refused by CloudWatch. */
  def dropped: Long = droppedTotal.get()

  /** Data CloudWatch took. */
  def sent: Long = sentTotal.get()

  /** PutMetricData calls made, those that failed included. */
  def callsMade: Long = calls.get()

  /** Data waiting to be sent. */
  def queued: Int = lock.synchronized(queue.size)

  /** Whether the sender thread runs now. */
  def sending: Boolean = lock.synchronized(sender.exists(_.isAlive))

  /** Stops taking data; the sender makes one last attempt at what is queued, then ends. Idempotent. */
  def close(): Unit = lock.synchronized {
    closed = true
    lock.notifyAll()
  }

  private def drop(count: Long, reason: String): Unit = lock.synchronized {
    droppedInTrouble += count
    troubled(reason)
    droppedTotal.addAndGet(count)
  }

  private def troubled(reason: String): Unit = lock.synchronized {
    if (trouble.isEmpty) {
      trouble = Some(reason)
      log.warn(
        s"Kinesis metrics are not reaching CloudWatch (namespace $namespace): $reason. Up to $maxQueued data are " +
          "kept and sent again; beyond that the oldest are dropped. Next line when a call succeeds again.")
    }
  }

  private def recovered(): Unit = lock.synchronized {
    trouble.foreach { reason =>
      log.warn(
        s"Kinesis metrics reach CloudWatch again (namespace $namespace); $droppedInTrouble data were dropped " +
          s"since: $reason")
      trouble = None
      droppedInTrouble = 0
    }
  }

  /** The sender thread's loop: takes what is queued, sends it, until idle or closed. */
  private def run(): Unit = {
    var api = Option.empty[CloudWatchApi]
    val backoff = new Backoff(retryMinMs, retryMaxMs, SystemClock)
    try {
      var last = false
      while (!last) {
        val batch = lock.synchronized {
          val started = System.nanoTime()
          def waitedMs = (System.nanoTime() - started) / 1000000
          while (queue.isEmpty && !closed && waitedMs < idleMs) lock.wait(math.max(1L, idleMs - waitedMs))
          if (queue.isEmpty) {
            // Idle, or closed with nothing left: ends; data offered from now on start another sender.
            sender = sender.filterNot(_ eq Thread.currentThread())
            last = true
            Seq.empty[MetricDatum]
          } else {
            last = closed
            val taken = Seq.newBuilder[MetricDatum]
            var n = 0
            while (!queue.isEmpty && n < PutMetricDataRequests.MaxData) { taken += queue.pollFirst(); n += 1 }
            taken.result()
          }
        }
        if (batch.nonEmpty) {
          val client = api.getOrElse { val made = newApi(); api = Some(made); made }
          val kept = send(client, batch)
          if (kept.isEmpty) backoff.reset()
          else {
            requeue(kept)
            if (!last) backoff.sleep()
          }
        }
      }
    } catch {
      case _: InterruptedException => ()
    } finally {
      lock.synchronized { sender = sender.filterNot(_ eq Thread.currentThread()) }
      api.foreach(a =>
        try a.close()
        catch { case NonFatal(_) => () })
    }
  }

  /** Sends `batch` in as few calls as CloudWatch's limits allow; returns the data to send again. */
  private def send(api: CloudWatchApi, batch: Seq[MetricDatum]): Seq[MetricDatum] = {
    val requests = PutMetricDataRequests.split(namespace, batch)
    val tooBig = batch.size - requests.map(_.data.size).sum
    if (tooBig > 0) drop(tooBig, "a datum was larger than CloudWatch takes in one call")
    var kept = Seq.empty[MetricDatum]
    requests.foreach { request =>
      if (kept.nonEmpty) kept ++= request.data
      else {
        calls.incrementAndGet()
        try {
          api.putMetricData(request.body)
          // Logged before counted: whoever sees the count sees the line too.
          recovered()
          sentTotal.addAndGet(request.data.size.toLong)
        } catch {
          case f: CloudWatchFailure if f.keepData =>
            troubled(f.reason)
            kept = request.data
          case f: CloudWatchFailure =>
            drop(request.data.size.toLong, f.reason)
          case NonFatal(e) =>
            troubled(s"PutMetricData failed: $e")
            kept = request.data
        }
      }
    }
    kept
  }

  /** Puts data whose call failed back at the head of the queue, within its bound (the oldest dropped). */
  private def requeue(data: Seq[MetricDatum]): Unit = lock.synchronized {
    val room = math.max(0, maxQueued - queue.size)
    val back = data.takeRight(room)
    back.reverseIterator.foreach(queue.addFirst)
    if (data.size > back.size)
      drop((data.size - back.size).toLong, s"more than $maxQueued data waited to be sent (maxQueuedData)")
  }
}

private[sparkkinesis] object MetricsPublisher {
  val ThreadName = "kinesis-cloudwatch-metrics"

  /** How long the sender waits for data before it ends. */
  val IdleMs = 60000L

  /** Pauses between attempts while CloudWatch fails. */
  val RetryMinMs = 1000L
  val RetryMaxMs = 30000L
}
