// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.consumers

import scala.collection.mutable
import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{ApiFailures, ConsumerInfo, KinesisApi}
import io.github.sparkkinesis.config.QueryConsumer
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.util.{Clock, DaemonThreads}
import org.slf4j.LoggerFactory

/**
 * The enhanced fan-out consumers of one query, one per stream. The query's own are registered (or an
 * existing one of the name reused) before the first subscription, checked again every `refreshIntervalMs`
 * and as soon as a subscription finds its consumer gone, and registered again if they are gone: a consumer
 * deregistered behind the query's back costs a pause, not the query. Consumers registered beforehand
 * (`registeredConsumerId`) are checked the same way but never registered nor deregistered: one missing or
 * not ACTIVE fails the query. Driver side; thread-safe: the prefetcher's thread asks for the consumers, the
 * query's thread deregisters them on stop. Every call to Kinesis runs to its end even when the calling
 * thread is interrupted.
 *
 * @param consumers the consumer of each stream
 */
private[sparkkinesis] final class StreamConsumers(
    api: KinesisApi,
    consumers: Map[String, QueryConsumer],
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
    consumers.foreach { case (stream, consumer) =>
      if (due || !consumerArns.contains(stream)) {
        val arn = call("DescribeStreamConsumer", stream)(active(stream, consumer).arn)
        consumerArns.put(stream, arn).filter(_ != arn).foreach { before =>
          log.warn(s"The consumer ${consumer.id} of stream '$stream' was registered again ($before is gone; now $arn)")
        }
      }
    }
    if (due) checkedAt = Some(now)
    activeCount = consumerArns.size
    consumerArns.toMap
  }

  private def active(stream: String, consumer: QueryConsumer): ConsumerInfo = consumer match {
    case QueryConsumer.Own(name) => ConsumerRegistration.activate(api, stream, streamArn(stream), name, clock)
    case registered: QueryConsumer.Registered =>
      val found = registered match {
        case QueryConsumer.RegisteredName(name) => api.describeConsumer(streamArn(stream), name)
        case QueryConsumer.RegisteredArn(arn) => api.describeConsumerByArn(arn)
      }
      found match {
        case Some(c) if c.isActive => c
        case Some(c) =>
          throw KinesisErrors.registeredConsumerUnusable(stream, registered.id, s"is ${c.status}, not ACTIVE")
        case None => throw KinesisErrors.registeredConsumerUnusable(stream, registered.id, "is not registered")
      }
  }

  /** A subscription found the consumer of `stream` gone: the next [[arns]] checks it again. */
  def lost(stream: String): Unit = synchronized {
    val what = if (consumers(stream).isInstanceOf[QueryConsumer.Own]) "registering it again" else "checking it"
    log.warn(s"The consumer ${consumers(stream).id} of stream '$stream' is gone; $what")
    consumerArns.remove(stream)
    activeCount = consumerArns.size
  }

  /**
   * Deregisters every consumer the query registered (none that it was given); failures are logged, as the
   * query is stopping anyway.
   */
  def deregister(): Unit = synchronized {
    consumers.foreach {
      case (stream, QueryConsumer.Own(name)) =>
        try {
          call("DeregisterStreamConsumer", stream)(api.deregisterConsumer(streamArn(stream), name))
          log.info(s"Deregistered the enhanced fan-out consumer $name of stream '$stream'")
        } catch {
          case NonFatal(e) => log.warn(s"Could not deregister the consumer $name of stream '$stream': $e")
        }
      case _ => ()
    }
    consumerArns.clear()
    activeCount = 0
  }

  /**
   * The consumers the query reads through now: ACTIVE, one per stream, until one is found gone or they are
   * deregistered. Read without waiting for a registration under way.
   */
  def inUse: Int = activeCount

  @volatile private var activeCount = 0

  private def streamArn(stream: String): String =
    streamArns.getOrElseUpdate(stream, call("DescribeStreamSummary", stream)(api.describeStream(stream).arn))

  private def call[T](action: String, stream: String)(body: => T): T =
    ApiFailures.userFacing(action, stream, api)(DaemonThreads.shieldedFromInterrupts(body))
}
