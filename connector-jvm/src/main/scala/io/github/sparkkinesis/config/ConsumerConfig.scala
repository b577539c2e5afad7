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
 *                          the streams; None: the streaming query's id
 * @param prefix            `consumerNamePrefix`, put before every name
 * @param refreshIntervalMs `consumerRefreshInterval`: how often registrations are checked
 * @param deregisterOnStop  `requireConsumerDeregistration`
 * @param registered        `registeredConsumerId`: consumers registered beforehand, each stream's, read
 *                          through as they are instead of the query's own
 */
private[sparkkinesis] final case class ConsumerConfig(
    mode: ConsumerMode,
    names: Option[Seq[String]],
    prefix: String,
    refreshIntervalMs: Long,
    deregisterOnStop: Boolean,
    registered: Option[Map[String, QueryConsumer.Registered]] = None) {

  def isEfo: Boolean = mode == ConsumerMode.Efo

  /** The consumer of each stream: a registered one given, else the query's own, named by [[namesFor]]. */
  def consumersFor(streams: Seq[String], queryId: => String): Map[String, QueryConsumer] =
    registered.getOrElse(namesFor(streams, queryId).map { case (stream, name) => stream -> QueryConsumer.Own(name) })

  /** The consumer name of each stream, the query's id standing in for a name not given. */
  def namesFor(streams: Seq[String], queryId: => String): Map[String, String] = names match {
    case Some(Seq(one)) => streams.map(_ -> (prefix + one)).toMap
    case Some(perStream) => streams.zip(perStream.map(prefix + _)).toMap
    case None => streams.map(_ -> (prefix + queryId)).toMap
  }
}

/** The enhanced fan-out consumer a query reads a stream through. */
private[sparkkinesis] sealed trait QueryConsumer extends Serializable {

  /** How messages name it: its name or ARN. */
  def id: String
}

private[sparkkinesis] object QueryConsumer {

  /** The query's own, of this name (prefix included): registered if need be, deregistered if asked. */
  final case class Own(name: String) extends QueryConsumer {
    def id: String = name
  }

  /** One registered beforehand (`registeredConsumerId`): used as it is, never registered nor deregistered. */
  sealed trait Registered extends QueryConsumer

  /** Given by its name. */
  final case class RegisteredName(name: String) extends Registered {
    def id: String = name
  }

  /** Given by its ARN. */
  final case class RegisteredArn(arn: String) extends Registered {
    def id: String = arn
  }
}

/** How `registeredConsumerId` names consumers: the option `registeredConsumerIdType`. */
private[sparkkinesis] sealed trait ConsumerIdType extends Serializable

private[sparkkinesis] object ConsumerIdType {
  case object Name extends ConsumerIdType
  case object Arn extends ConsumerIdType
}
