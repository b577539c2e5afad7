// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/**
 * The records a SubscribeToShard subscription pushes, pulled one event at a time. Implementations are used
 * by one thread at a time.
 */
private[sparkkinesis] trait ShardSubscription extends AutoCloseable {

  /**
   * The next event, waiting at most `timeoutMs`; None if none came in that time. Once the subscription has
   * ended, [[SubscriptionEvent.Ended]] on every call. A failure of the subscription is thrown as a
   * [[KinesisApiException]].
   */
  def next(timeoutMs: Long): Option[SubscriptionEvent]

  /** Ends the subscription; idempotent. */
  override def close(): Unit
}
