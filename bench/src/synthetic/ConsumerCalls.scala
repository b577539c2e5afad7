// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import io.github.sparkkinesis.bench.synthetic.Requests._
import software.amazon.awssdk.thirdparty.jackson.core.JsonGenerator

/**
 * The synthetic Kinesis' operations of enhanced fan-out: RegisterStreamConsumer, DescribeStreamConsumer,
 * ListStreamConsumers, DeregisterStreamConsumer over each stream's [[SyntheticConsumers]], and
 * SubscribeToShard, which opens one of the [[SyntheticSubscriptions]]. Thread-safe.
 *
 * @param streamOf the stream a request names (by StreamName or StreamARN), or a refusal
 * @param streamNamed the stream of a name, or a refusal
 */
private[synthetic] final class ConsumerCalls(
    streamOf: Map[String, Any] => SyntheticStream,
    streamNamed: String => SyntheticStream,
    subscriptions: SyntheticSubscriptions,
    consumerDelayMs: Long) {

  def register(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val stream = streamOf(request)
    val name = text(request, "ConsumerName")
    val consumer = stream.consumers.register(name, System.currentTimeMillis(), consumerDelayMs).getOrElse {
      throw Refusal("ResourceInUseException", s"Consumer $name of stream ${stream.arn} exists")
    }
    ok(wire.write()(g => writeConsumer(g, "Consumer", consumer, stream = None)))
  }

  def describe(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val (stream, consumer) = consumerOf(request)
    ok(wire.write()(g => writeConsumer(g, "ConsumerDescription", consumer, Some(stream))))
  }

  def list(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val stream = streamOf(request)
    ok(wire.write() { g =>
      g.writeFieldName("Consumers")
      g.writeStartArray()
      stream.consumers.list(System.currentTimeMillis()).foreach(c => writeConsumer(g, null, c, stream = None))
      g.writeEndArray()
    })
  }

  def deregister(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val (_, consumer) = consumerOf(request)
    deregistered(consumer)
    ok(wire.write()(_ => ()))
  }

  /** Deregisters a consumer and ends its subscriptions; false if it was already. */
  def deregistered(consumer: SyntheticConsumers.Consumer): Boolean =
    consumer.deregister(System.currentTimeMillis()) && { subscriptions.consumerGone(consumer); true }

  /** A consumer as Kinesis describes it, as the field `name` (or, with null, as an item of a list). */
  private def writeConsumer(
      g: JsonGenerator,
      name: String,
      consumer: SyntheticConsumers.Consumer,
      stream: Option[SyntheticStream])(implicit wire: Wire): Unit = {
    if (name != null) g.writeFieldName(name)
    g.writeStartObject()
    field(g, "ConsumerName", consumer.name)
    field(g, "ConsumerARN", consumer.arn)
    field(g, "ConsumerStatus", consumer.status(System.currentTimeMillis()))
    wire.timestamp(g, "ConsumerCreationTimestamp", consumer.createdAtMs)
    stream.foreach(s => field(g, "StreamARN", s.arn))
    g.writeEndObject()
  }

  /** The consumer a request names, by its ARN or by its stream's ARN and its name. */
  private def consumerOf(request: Map[String, Any]): (SyntheticStream, SyntheticConsumers.Consumer) = {
    val now = System.currentTimeMillis()
    val found = request.get("ConsumerARN") match {
      case Some(arn: String) =>
        val stream = streamNamed(arn.split("/consumer/").head.split('/').last)
        (stream, stream.consumers.withArn(arn, now), arn)
      case _ =>
        val stream = streamOf(request)
        val name = text(request, "ConsumerName")
        (stream, stream.consumers.named(name, now), s"$name of stream ${stream.arn}")
    }
    found match {
      case (stream, Some(consumer), _) => (stream, consumer)
      case (_, None, what) => throw Refusal("ResourceNotFoundException", s"Consumer $what not found")
    }
  }

  /** SubscribeToShard: answered by the subscription it opens, or refused. */
  def subscribe(request: Map[String, Any], exchange: SyntheticServer.Exchange)(implicit wire: Wire): Option[Answer] = {
    val (stream, consumer) = consumerOf(request)
    consumer.status(System.currentTimeMillis()) match {
      case "ACTIVE" => ()
      case "DELETING" => throw Refusal("ResourceNotFoundException", s"Consumer ${consumer.arn} is being deleted")
      case other => throw Refusal("ResourceInUseException", s"Consumer ${consumer.arn} is $other, not ACTIVE")
    }
    val shard = shardOf(stream, text(request, "ShardId"))
    val start = request.get("StartingPosition") match {
      case Some(position: Map[String, Any] @unchecked) => position
      case _ => throw Refusal("InvalidArgumentException", "StartingPosition is required")
    }
    val position = text(start, "Type") match {
      case "AT_SEQUENCE_NUMBER" => recordNamed(shard, text(start, "SequenceNumber"))
      case "AFTER_SEQUENCE_NUMBER" => recordNamed(shard, text(start, "SequenceNumber")) + 1
      case _ => startOf(shard, start)
    }
    subscriptions.start(consumer, shard, position, exchange, wire)
    None
  }
}
