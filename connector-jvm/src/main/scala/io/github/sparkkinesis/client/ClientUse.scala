// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/**
 * What a Kinesis client is for: reading (the source), writing (the sink) or managing consumers (the
 * consumer manager). Each has a client of its own, which calls only the IAM actions declared here: the
 * documented policies (docs/guides/credentials.md), the access-denied error and a test that records every call of the integration suites
 * all follow this list. The client's user agent ends with [[userAgent]], so that CloudTrail tells the
 * connector's calls apart by side.
 */
private[sparkkinesis] sealed abstract class ClientUse(val name: String, val title: String) extends Serializable {

  /** The IAM actions this side calls, in the order a policy lists them. */
  def actions: Seq[ClientUse.Action]

  def userAgent: String = s"spark-kinesis/$name"
}

private[sparkkinesis] object ClientUse {

  /**
   * An IAM action and when it is called (None: always); `onConsumers` when IAM checks it on a consumer's
   * ARN (`stream/STREAM/consumer/NAME:...`) rather than the stream's.
   */
  final case class Action(name: String, when: Option[String] = None, onConsumers: Boolean = false)

  case object Reading extends ClientUse("source", "reading (the source)") {
    override val actions: Seq[Action] = Seq(
      Action("ListShards"),
      Action("GetShardIterator"),
      Action("GetRecords"),
      Action("DescribeStreamSummary"),
      Action("RegisterStreamConsumer", Some("consumerMode efo without registeredConsumerId")),
      Action("DescribeStreamConsumer", Some("consumerMode efo"), onConsumers = true),
      Action("SubscribeToShard", Some("consumerMode efo"), onConsumers = true),
      Action("DeregisterStreamConsumer", Some("consumerMode efo and requireConsumerDeregistration"), onConsumers = true)
    )
  }

  case object Writing extends ClientUse("sink", "writing (the sink)") {
    override val actions: Seq[Action] = Seq(
      Action("PutRecords"),
      Action("ListShards", Some("kplAggregation")),
      Action("DescribeStreamSummary")
    )
  }

  case object ManagingConsumers extends ClientUse("consumer-manager", "managing consumers (KinesisConsumerManager)") {
    override val actions: Seq[Action] = Seq(
      Action("DescribeStreamSummary"),
      Action("ListStreamConsumers"),
      Action("RegisterStreamConsumer"),
      Action("DescribeStreamConsumer", onConsumers = true),
      Action("DeregisterStreamConsumer", onConsumers = true)
    )
  }

  val all: Seq[ClientUse] = Seq(Reading, Writing, ManagingConsumers)

  /** What each side needs, as the access-denied error says it: "reading (the source): kinesis:ListShards, ...". */
  def needed: Seq[String] = all.map { use =>
    val actions = use.actions.map(a => "kinesis:" + a.name + a.when.fold("")(w => s" (with $w)"))
    s"${use.title}: ${actions.mkString(", ")}"
  }
}
