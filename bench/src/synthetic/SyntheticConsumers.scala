// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

/**
 * The enhanced fan-out consumers of one synthetic stream, as Kinesis keeps them: a consumer is CREATING for
 * `SyntheticKinesis.consumerDelayMs` after it is registered, then ACTIVE; once deregistered it is DELETING
 * for as long, then gone. Its subscriptions end at deregistration ([[SyntheticSubscriptions]]).
 * Thread-safe.
 */
private[bench] final class SyntheticConsumers(stream: SyntheticStream) {
  import SyntheticConsumers._

  private val byName = new ConcurrentHashMap[String, Consumer]()

  /** Registers a consumer, or returns None if one of that name exists (or is still being deleted). */
  def register(name: String, nowMs: Long, delayMs: Long): Option[Consumer] = {
    byName.values().asScala.filter(_.gone(nowMs)).foreach(c => byName.remove(c.name, c))
    val consumer = new Consumer(name, s"${stream.arn}/consumer/$name:${nowMs / 1000}", nowMs, delayMs)
    if (byName.putIfAbsent(name, consumer) == null) Some(consumer) else None
  }

  /** The consumer of that name, unless it is gone. */
  def named(name: String, nowMs: Long): Option[Consumer] = Option(byName.get(name)).filterNot(_.gone(nowMs))

  /** The consumer of that ARN, unless it is gone. */
  def withArn(arn: String, nowMs: Long): Option[Consumer] =
    arn.split("/consumer/") match {
      case Array(streamArn, nameAndTime) if streamArn == stream.arn =>
        named(nameAndTime.takeWhile(_ != ':'), nowMs).filter(_.arn == arn)
      case _ => None
    }

  /** The consumers that are not gone, by name. */
  def list(nowMs: Long): Seq[Consumer] = byName.values().asScala.toSeq.filterNot(_.gone(nowMs)).sortBy(_.name)
}

private[bench] object SyntheticConsumers {

  /** One consumer; its status follows from the time, so that nothing has to run to change it. */
  final class Consumer(val name: String, val arn: String, val createdAtMs: Long, delayMs: Long) {
    @volatile private var deregisteredAtMs: Option[Long] = None

    def status(nowMs: Long): String = deregisteredAtMs match {
      case Some(_) => "DELETING"
      case None if nowMs < createdAtMs + delayMs => "CREATING"
      case None => "ACTIVE"
    }

    def active(nowMs: Long): Boolean = status(nowMs) == "ACTIVE"

    /** Marks the consumer DELETING; false if it was already. */
    def deregister(nowMs: Long): Boolean = synchronized {
      if (deregisteredAtMs.isDefined) false else { deregisteredAtMs = Some(nowMs); true }
    }

    def gone(nowMs: Long): Boolean = deregisteredAtMs.exists(nowMs >= _ + delayMs)
  }
}
