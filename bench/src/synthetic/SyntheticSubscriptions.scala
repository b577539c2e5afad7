// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import java.util.concurrent.{ConcurrentHashMap, Executors, ScheduledFuture, TimeUnit}

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.bench.synthetic.SyntheticConsumers.Consumer
import io.netty.util.concurrent.DefaultThreadFactory

/**
 * The open SubscribeToShard subscriptions of a synthetic Kinesis, each pushing its shard's records as they
 * arrive: every `pollMs` it looks at its shard and sends what came (at most 1 MiB an event, and with the
 * stream's limits, 2 MB a second per consumer and shard, [[PushBudget]]), or, after a second with nothing, an
 * empty event that says where the shard's tip is. A subscription ends
 *  - normally, after `lifetimeMs` (Kinesis: five minutes), or after the event that says its closed shard
 *    was read to its end (no ContinuationSequenceNumber, its ChildShards);
 *  - in error: ResourceInUseException when the same consumer subscribes to the shard again (the new one
 *    goes on), ResourceNotFoundException when the consumer is deregistered;
 *  - cut, with its connection, by an outage.
 * One scheduler thread pushes for all. Thread-safe.
 */
private[synthetic] final class SyntheticSubscriptions(lifetimeMs: Long, pollMs: Long) {
  import SyntheticSubscriptions._

  private val scheduler =
    Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("synthetic-kinesis-subscriptions", true))
  private val open = new ConcurrentHashMap[(String, String), Subscription]()
  private val budgets = new ConcurrentHashMap[(String, String), PushBudget]()

  /** How many subscriptions are open now. */
  def count: Int = open.size

  /** Opens a subscription of `consumer` to `shard` from record `position`, answering through `exchange`. */
  def start(
      consumer: Consumer,
      shard: SyntheticShard,
      position: Long,
      exchange: SyntheticServer.Exchange,
      wire: Wire): Unit = {
    val key = (consumer.arn, shard.id)
    val budget = if (shard.limits.isDefined) Some(budgets.computeIfAbsent(key, _ => new PushBudget())) else None
    val subscription = new Subscription(key, consumer, shard, position, exchange, wire, budget)
    exchange.open(Seq("Content-Type" -> EventStream.ContentType))
    exchange.push(EventStream.event(wire, "initial-response", wire.write()(_ => ())))
    Option(open.put(key, subscription)).foreach { earlier =>
      earlier.fail(
        "ResourceInUseException",
        s"Another subscription of consumer ${consumer.arn} to shard ${shard.id} has started")
    }
    subscription.scheduled =
      scheduler.scheduleWithFixedDelay(() => subscription.tick(), 0, pollMs, TimeUnit.MILLISECONDS)
  }

  /** Ends every subscription of a deregistered consumer, as Kinesis does: ResourceNotFoundException. */
  def consumerGone(consumer: Consumer): Unit =
    open.values().asScala.filter(_.consumer eq consumer).foreach { s =>
      s.fail("ResourceNotFoundException", s"Consumer ${consumer.arn} was deregistered")
    }

  /** Forgets every subscription (their connections are closed, in an outage). */
  def cutAll(): Unit = open.values().asScala.foreach(_.finish())

  def close(): Unit = {
    cutAll()
    scheduler.shutdownNow()
    ()
  }

  private final class Subscription(
      key: (String, String),
      val consumer: Consumer,
      shard: SyntheticShard,
      start: Long,
      exchange: SyntheticServer.Exchange,
      wire: Wire,
      budget: Option[PushBudget]) {
    @volatile var scheduled: ScheduledFuture[_] = _
    private val startedAtMs = System.currentTimeMillis()
    private var position = start // the scheduler thread's
    private var lastEventMs = 0L
    @volatile private var ended = false

    def tick(): Unit = synchronized {
      if (ended) Option(scheduled).foreach(_.cancel(false)) else pushNext()
    }

    private def pushNext(): Unit = {
      val now = System.currentTimeMillis()
      if (!exchange.active) finish()
      else if (now >= startedAtMs + lifetimeMs) { exchange.end(); finish() }
      else if (exchange.writable) {
        val closed = shard.isClosed // read before the end: a closed shard's end is final
        val end = shard.end
        if (position < end) {
          val room = budget.map(_.available()).getOrElse(MaxEventBytes).min(MaxEventBytes)
          if (room > 0) {
            val (until, bytes) = ShardAnswers.until(shard, position, end, MaxEventRecords, room)
            budget.foreach(_.charge(bytes))
            send(shard.sequenceNumber(until - 1), until, end, now, atShardEnd = false)
          }
        } else if (closed) {
          send("", position, end, now, atShardEnd = true)
          exchange.end()
          finish()
        } else if (now - lastEventMs >= QuietEventMs) {
          send(shard.sequenceNumber(math.max(0L, position - 1)), position, end, now, atShardEnd = false)
        }
      }
    }

    /** An event with records `position` until `until`, and then, at a closed shard's end, its children. */
    private def send(continuation: String, until: Long, end: Long, now: Long, atShardEnd: Boolean): Unit = {
      val from = position
      exchange.push(
        EventStream.event(
          wire,
          "SubscribeToShardEvent",
          wire.write() { g =>
            ShardAnswers.writeRecords(g, wire, shard, from, until)
            if (!atShardEnd) g.writeStringField("ContinuationSequenceNumber", continuation)
            g.writeNumberField("MillisBehindLatest", ShardAnswers.millisBehind(shard, until, end, now))
            if (atShardEnd) ShardAnswers.writeChildShards(g, shard)
          }
        ))
      position = until
      lastEventMs = now
    }

    /** Ends the subscription with an exception event. */
    def fail(code: String, message: String): Unit = synchronized {
      if (!ended) {
        exchange.push(EventStream.exception(wire, code, message))
        exchange.end()
        finish()
      }
    }

    def finish(): Unit = synchronized {
      ended = true
      open.remove(key, this)
      Option(scheduled).foreach(_.cancel(false))
    }
  }
}

private[synthetic] object SyntheticSubscriptions {
  private val MaxEventBytes = 1024L * 1024
  private val MaxEventRecords = 10000L

  /** How long a subscription with nothing to push stays silent. */
  private val QuietEventMs = 1000L
}
