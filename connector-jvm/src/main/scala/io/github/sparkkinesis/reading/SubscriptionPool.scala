// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import java.util.concurrent.{ConcurrentHashMap, Executors, TimeUnit}

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{IteratorStart, ShardSubscription}
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Enhanced fan-out subscriptions kept open between prefetch tasks on one executor. A prefetch task ends
 * every few hundred milliseconds to hand its blocks over; if each closed its subscriptions, the next would
 * have to subscribe again, which Kinesis allows once a second per shard and, until the old subscription is
 * released, refuses. So a task leaves its open subscriptions here, with the position each has reached, and
 * the next task on this executor that reads the shard from that very position goes on with it. Entries
 * nobody takes within `idleMs` are closed. Thread-safe.
 */
private[sparkkinesis] final class SubscriptionPool(idleMs: Long, clock: Clock) {
  import SubscriptionPool._

  private val entries = new ConcurrentHashMap[(String, ShardKey), Entry]()

  /**
   * The subscription of `consumerArn` to `shard` left here, if it stands at `position`. One that stands
   * elsewhere is closed: the task reads from a position of its own.
   */
  def take(consumerArn: String, shard: ShardKey, position: IteratorStart): Option[LeftOpen] =
    Option(entries.remove((consumerArn, shard))).flatMap { e =>
      if (e.left.position == position) Some(e.left)
      else {
        closeQuietly(e.left.subscription)
        None
      }
    }

  /** Leaves an open subscription, positioned after what its reader took, for the next task. */
  def give(consumerArn: String, shard: ShardKey, left: LeftOpen): Unit =
    Option(entries.put((consumerArn, shard), Entry(left, clock.nowMillis())))
      .foreach(e => closeQuietly(e.left.subscription))

  /** Closes the subscriptions left longer than `idleMs` ago. */
  def closeIdle(): Unit = {
    val now = clock.nowMillis()
    entries.asScala.foreach { case (key, e) =>
      if (now - e.leftAt >= idleMs && entries.remove(key, e)) {
        log.debug(s"Closing the idle subscription to ${key._2}")
        closeQuietly(e.left.subscription)
      }
    }
  }

  def size: Int = entries.size

  private def closeQuietly(s: ShardSubscription): Unit =
    try s.close()
    catch { case NonFatal(e) => log.debug(s"Closing a subscription failed: $e") }
}

private[sparkkinesis] object SubscriptionPool {
  private val log = LoggerFactory.getLogger(classOf[SubscriptionPool])

  /**
   * A subscription left open by a task.
   *
   * @param position     after the last record the task took, or where the subscription was opened
   * @param subscribedAt when it was opened (subscriptions are renewed after `subscriptionLifetimeMs`)
   * @param requestedAt  when its next event was asked for: that event shows the shard as of then or later
   */
  final case class LeftOpen(
      subscription: ShardSubscription,
      position: IteratorStart,
      subscribedAt: Long,
      requestedAt: Long)

  private final case class Entry(left: LeftOpen, leftAt: Long)

  /** Longer than the pause between two prefetch jobs, short enough to free a shard a task moved away from. */
  val IdleMs = 3000L

  /** The pool of this executor JVM, swept every half second by a daemon thread. */
  lazy val shared: SubscriptionPool = {
    val pool = new SubscriptionPool(IdleMs, io.github.sparkkinesis.util.SystemClock)
    val sweeper = Executors.newSingleThreadScheduledExecutor { (r: Runnable) =>
      val t = new Thread(r, "kinesis-subscription-sweeper")
      t.setDaemon(true)
      t
    }
    sweeper.scheduleWithFixedDelay(() => pool.closeIdle(), 500, 500, TimeUnit.MILLISECONDS)
    pool
  }
}
