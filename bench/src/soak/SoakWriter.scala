// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal
import scala.util.Random

import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.services.kinesis.model.{PutRecordsRequest, PutRecordsRequestEntry}
import software.amazon.awssdk.services.kinesis.KinesisClient

/**
 * The soak's producer: every 100 ms a PutRecords call with a tenth of `perSecond` records of `recordBytes`,
 * each with a partition key of its own (so spread over every open shard), and `burstTimes` as many during
 * the bursts; records Kinesis turns down (throttled, or not reached in an outage) are sent again in the next
 * call, so that none is dropped. What Kinesis holds is the truth the soak checks the queries against, not
 * what this sent. Stops with [[stop]].
 */
private[soak] final class SoakWriter(
    client: KinesisClient,
    stream: String,
    perSecond: Int,
    recordBytes: Int,
    burst: Long => Boolean,
    burstTimes: Int) {

  private val accepted = new AtomicLong()
  private val turnedDown = new AtomicLong()
  private val failedCalls = new AtomicLong()
  @volatile private var running = true
  private val data = SdkBytes.fromByteArray(("soak " * (recordBytes / 5 + 1)).take(recordBytes).getBytes(UTF_8))
  private val random = new Random(35)
  private val startedAt = System.currentTimeMillis()

  private val thread = new Thread(() => loop(), "soak-writer")
  thread.setDaemon(true)
  thread.start()

  /** Records Kinesis has accepted so far. */
  def records: Long = accepted.get

  /** Records Kinesis turned down one by one, and calls that failed whole (each sent again). */
  def refusals: (Long, Long) = (turnedDown.get, failedCalls.get)

  def stop(): Unit = {
    running = false
    thread.join(10000)
  }

  private def loop(): Unit = {
    var pending = Vector.empty[PutRecordsRequestEntry]
    var next = System.currentTimeMillis()
    while (running) {
      val tick = perSecond / 10 * (if (burst(System.currentTimeMillis() - startedAt)) burstTimes else 1)
      // What Kinesis turns down waits for the next tick, with the tick's new records behind it.
      pending = (pending ++ Vector.fill(tick)(entry())).grouped(500).toVector.flatMap(send)
      next += 100
      Thread.sleep(math.max(0L, next - System.currentTimeMillis()))
    }
  }

  /** One PutRecords call; returns the entries Kinesis did not take. */
  private def send(entries: Vector[PutRecordsRequestEntry]): Vector[PutRecordsRequestEntry] =
    try {
      val answer = client.putRecords(PutRecordsRequest.builder().streamName(stream).records(entries.asJava).build())
      val refused = entries.zip(answer.records().asScala).collect { case (e, r) if r.errorCode() != null => e }
      accepted.addAndGet((entries.size - refused.size).toLong)
      turnedDown.addAndGet(refused.size.toLong)
      refused
    } catch {
      case NonFatal(_) =>
        failedCalls.incrementAndGet()
        entries
    }

  private def entry(): PutRecordsRequestEntry =
    PutRecordsRequestEntry.builder().partitionKey(s"key-${random.nextLong()}").data(data).build()
}
