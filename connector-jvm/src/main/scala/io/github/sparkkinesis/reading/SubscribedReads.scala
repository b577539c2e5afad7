// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.{
  IteratorStart,
  KinesisApi,
  KinesisApiException,
  ShardSubscription,
  SubscriptionEvent
}
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.util.{Backoff, Clock}
import org.slf4j.LoggerFactory

/**
 * Enhanced fan-out: records pushed by a SubscribeToShard subscription of the query's consumer. A task goes
 * on with the subscription the previous task on this executor left in `pool` at the position it starts
 * from, or subscribes, and takes the events as they come; at its end it leaves the subscription open in the
 * pool. When Kinesis ends the subscription (after five minutes) or it is older than
 * `subscriptionLifetimeMs`, the next step subscribes again after the last record read. Subscriptions to one
 * shard are at least a second apart, Kinesis' limit per consumer and shard; when Kinesis answers that the
 * shard is busy (the previous subscription is not released yet) or throttles, the next attempt waits,
 * twice as long each time up to [[SubscribedReads.MaxBackoffMs]].
 *
 * A failure of the subscription other than those is thrown; its [[FetchLoop]] reports it to its user.
 */
private[reading] final class SubscribedReads(
    api: KinesisApi,
    key: ShardKey,
    consumerArn: String,
    config: ReadConfig,
    start: FetchCursor,
    pool: SubscriptionPool,
    clock: Clock)
    extends ShardReads {
  import SubscribedReads._

  private var subscription = Option.empty[ShardSubscription]
  private var subscribedAt = 0L
  private var lookedInPool = false

  /**
   * When the subscription's next event was asked for: it shows the shard as of then or later. Events are
   * asked for one at a time, so one may wait, older, while the subscription is in the pool.
   */
  private var requestedAt = 0L

  /** Where the open subscription stands: after the last record it delivered, or where it was opened. */
  private var position: IteratorStart = IteratorStart.Latest

  /** The next subscription is not before this instant. */
  private var notBefore = start.notBeforeMs
  private var backoffs = 0
  private var made = 0
  private var answeredAt = Option.empty[Long]

  /** While subscribed, at once: a step waits for the next event itself. */
  override def nextStepAt: Long =
    if (subscription.isDefined || !lookedInPool) clock.nowMillis() else notBefore
  override def calls: Int = made
  override def lastAnsweredAt: Option[Long] = answeredAt
  override def cursor: FetchCursor = FetchCursor(None, notBefore, start.recordsPerCall)

  /** Ends the open subscription: reading goes on elsewhere. */
  override def reset(): Unit = {
    subscription.foreach(_.close())
    subscription = None
  }

  /** The task is over: its open subscription waits in the pool for the next task. */
  override def close(): Unit = {
    subscription.foreach { s =>
      pool.give(consumerArn, key, SubscriptionPool.LeftOpen(s, position, subscribedAt, requestedAt))
    }
    subscription = None
  }

  override def step(resumeAt: => IteratorStart): ReadStep = {
    if (!lookedInPool) {
      lookedInPool = true
      val at = resumeAt
      pool.take(consumerArn, key, at).foreach { left =>
        subscription = Some(left.subscription)
        subscribedAt = left.subscribedAt
        requestedAt = left.requestedAt
        position = at
      }
    }
    if (subscription.isDefined && clock.nowMillis() - subscribedAt >= config.subscriptionLifetimeMs) {
      log.debug(s"Renewing the subscription to $key after ${config.subscriptionLifetimeMs} ms")
      reset()
    }
    subscription match {
      case None if clock.nowMillis() < notBefore => ReadStep.Nothing
      case None => subscribe(resumeAt)
      case Some(open) =>
        try received(open.next(EventWaitMs))
        catch {
          case e @ (_: KinesisApiException.InUse | _: KinesisApiException.Throttled) =>
            reset()
            refused(e)
          case e: KinesisApiException =>
            reset()
            throw e
        }
    }
  }

  private def received(event: Option[SubscriptionEvent]): ReadStep = {
    if (event.isDefined) answeredAt = Some(clock.nowMillis())
    readOf(event)
  }

  private def readOf(event: Option[SubscriptionEvent]): ReadStep = event match {
    case None => ReadStep.Nothing
    case Some(SubscriptionEvent.Ended) =>
      log.debug(s"The subscription to $key ended; subscribing again")
      reset()
      ReadStep.Nothing
    case Some(r: SubscriptionEvent.Records) =>
      backoffs = 0
      r.records.lastOption.foreach(last => position = IteratorStart.AfterSequenceNumber(last.sequenceNumber))
      val asOf = requestedAt
      requestedAt = clock.nowMillis() // taking this event asked for the next
      // An event holds what was pushed, not everything up to the tip: only an empty one at the tip is whole.
      val atTip = r.millisBehindLatest == 0
      ReadStep.Read(
        r.records,
        r.millisBehindLatest,
        atTip,
        r.shardEnded,
        asOf,
        wholeUpTo = if (atTip && r.records.isEmpty) Long.MaxValue else ReadStep.NotWhole)
  }

  private def subscribe(resumeAt: IteratorStart): ReadStep = {
    val now = clock.nowMillis()
    made += 1
    // The next subscription to this shard, in this task or the next, is not sooner than Kinesis allows.
    notBefore = now + MinSubscribeIntervalMs
    try {
      subscription = Some(ShardIterators.openAt(key, resumeAt, config.failOnDataLoss) { at =>
        val opened = api.subscribeToShard(consumerArn, key.shardId, at)
        position = at
        opened
      })
      subscribedAt = now
      requestedAt = now
      answeredAt = Some(now)
      ReadStep.Nothing
    } catch {
      case e @ (_: KinesisApiException.InUse | _: KinesisApiException.Throttled) => refused(e)
    }
  }

  /**
   * Kinesis refused the subscription (it answers asynchronously, so this shows on subscribing or with the
   * first event): the shard is busy or the calls too frequent. The next attempt waits.
   */
  private def refused(e: Throwable): ReadStep = {
    answeredAt = Some(clock.nowMillis())
    backoffs += 1
    val pause = Backoff.pauseAfter(backoffs, MinSubscribeIntervalMs, MaxBackoffMs)
    notBefore = clock.nowMillis() + pause
    log.info(s"Subscribing to $key was refused (${e.getMessage}); trying again in $pause ms")
    e match {
      case throttled: KinesisApiException.Throttled => ReadStep.Throttled(throttled)
      case _ => ReadStep.Nothing
    }
  }
}

private[reading] object SubscribedReads {
  private val log = LoggerFactory.getLogger(classOf[SubscribedReads])

  /** Kinesis allows one SubscribeToShard call per second per consumer and shard. */
  val MinSubscribeIntervalMs = 1000L

  val MaxBackoffMs = 10000L

  /** How long one step waits for an event, so that the task sees soon when it is over. */
  val EventWaitMs = 20L
}
