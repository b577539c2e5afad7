// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

/** How the source reads shards: the option `consumerMode`. */
private[sparkkinesis] sealed trait ConsumerMode extends Serializable

private[sparkkinesis] object ConsumerMode {

  /** GetRecords calls, paced within the stream's shared read limits. */
  case object Polling extends ConsumerMode

  /** Enhanced fan-out: a registered consumer with its own 2 MB/s per shard, records pushed by SubscribeToShard. */
  case object Efo extends ConsumerMode

}

/**
 * The enhanced fan-out consumer of a query. Immutable; driver side.
 *
 * @param names             `consumerName`: one name for every stream, or one per stream in the order of
 *                          `streamName`; None: the streaming query's id
 * @param prefix            `consumerNamePrefix`, put before every name
 * @param refreshIntervalMs `consumerRefreshInterval`: how often registrations are checked
 * @param deregisterOnStop  `requireConsumerDeregistration`
 */
private[sparkkinesis] final case class ConsumerConfig(
    mode: ConsumerMode,
    names: Option[Seq[String]],
    prefix: String,
    refreshIntervalMs: Long,
    deregisterOnStop: Boolean) {

  def isEfo: Boolean = mode == ConsumerMode.Efo

  /** The consumer name of each stream, the query's id standing in for a name not given. */
  def namesFor(streams: Seq[String], queryId: => String): Map[String, String] = names match {
    case Some(Seq(one)) => streams.map(_ -> (prefix + one)).toMap
    case Some(perStream) => streams.zip(perStream.map(prefix + _)).toMap
    case None => streams.map(_ -> (prefix + queryId)).toMap
  }
}

private[sparkkinesis] object ConsumerConfig {}
