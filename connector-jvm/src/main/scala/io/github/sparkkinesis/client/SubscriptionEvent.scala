// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/** What a [[ShardSubscription]] hands over next. */
private[sparkkinesis] sealed trait SubscriptionEvent

private[sparkkinesis] object SubscriptionEvent {

  /**
   * Records pushed by Kinesis. `continuationSequenceNumber` is None once a closed shard has been read to
   * its end; `childShards` then names the shards that follow it.
   */
  final case class Records(
      records: Seq[KinesisRecord],
      continuationSequenceNumber: Option[String],
      millisBehindLatest: Long,
      childShards: Seq[String])
      extends SubscriptionEvent {

    def shardEnded: Boolean = continuationSequenceNumber.isEmpty || childShards.nonEmpty
  }

  /** The subscription ended normally (Kinesis ends each after five minutes); subscribe again to go on. */
  case object Ended extends SubscriptionEvent
}
