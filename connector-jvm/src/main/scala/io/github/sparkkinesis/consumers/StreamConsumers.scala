// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.consumers

import scala.collection.mutable
import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{ApiFailures, KinesisApi}
import io.github.sparkkinesis.util.{Clock, DaemonThreads}
import org.slf4j.LoggerFactory

/**
 * The enhanced fan-out consumers of one query, one per stream. They are registered (or an existing one of
 * the name reused) before the first subscription, checked again every `refreshIntervalMs` and as soon as a
 * subscription finds its consumer gone, and registered again if they are gone: a consumer deregistered
 * behind the query's back costs a pause, not the query. Driver side; thread-safe: the prefetcher's thread
 * asks for the consumers, the query's thread deregisters them on stop. Every call to Kinesis runs to its
 * end even when the calling thread is interrupted.
 *
 * @param names the consumer name of each stream, prefix included
 */
private[sparkkinesis] final class StreamConsumers(
    api: KinesisApi,
    names: Map[String, String],
    refreshIntervalMs: Long,
    clock: Clock) {
  private val log = LoggerFactory.getLogger(getClass)

  private val streamArns = mutable.Map.empty[String, String]
  private val consumerArns = mutable.Map.empty[String, String]
  private var checkedAt = Option.empty[Long]

  /** The ARN of each stream's ACTIVE consumer; registers and waits as needed. */
  def arns(): Map[String, String] = synchronized {
    val now = clock.nowMillis()
    val due = checkedAt.forall(now - _ >= refreshIntervalMs)
    names.foreach { case (stream, name) =>
      if (due || !consumerArns.contains(stream)) {
        val arn = call("DescribeStreamConsumer", stream) {
          ConsumerRegistration.activate(api, stream, streamArn(stream), name, clock).arn
        }
        consumerArns.put(stream, arn).filter(_ != arn).foreach { before =>
          log.warn(s"The consumer $name of stream '$stream' was registered again ($before is gone; now $arn)")
        }
      }
    }
    if (due) checkedAt = Some(now)
    active = consumerArns.size
    consumerArns.toMap
  }

  /** A subscription found the consumer of `stream` gone: the next [[arns]] checks it again. */
  def lost(stream: String): Unit = synchronized {
    log.warn(s"The consumer ${names(stream)} of stream '$stream' is gone; registering it again")
    consumerArns.remove(stream)
    active = consumerArns.size
  }

  /** Deregisters every consumer of the query; failures are logged, as the query is stopping anyway. */
  def deregister(): Unit = synchronized {
    names.foreach { case (stream, name) =>
      try {
        call("DeregisterStreamConsumer", stream)(api.deregisterConsumer(streamArn(stream), name))
        log.info(s"Deregistered the enhanced fan-out consumer $name of stream '$stream'")
      } catch {
        case NonFatal(e) => log.warn(s"Could not deregister the consumer $name of stream '$stream': $e")
      }
    }
    consumerArns.clear()
    active = 0
  }

  /**
   * The consumers the query reads through now: ACTIVE, one per stream, until one is found gone or they are
   * deregistered. Read without waiting for a registration under way.
   */
  def inUse: Int = active

  @volatile private var active = 0

  private def streamArn(stream: String): String =
    streamArns.getOrElseUpdate(stream, call("DescribeStreamSummary", stream)(api.describeStream(stream).arn))

  private def call[T](action: String, stream: String)(body: => T): T =
    ApiFailures.userFacing(action, stream, api)(DaemonThreads.shieldedFromInterrupts(body))
}
