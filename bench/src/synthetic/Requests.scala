// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import software.amazon.awssdk.thirdparty.jackson.core.JsonGenerator

/** What the synthetic Kinesis' operations share: how they read a request's fields, and how they answer. */
private[synthetic] object Requests {

  /** What the endpoint answers: a body, and an error's type, with which it is a 400 as Kinesis' refusals are. */
  final case class Answer(errorType: Option[String], body: Array[Byte], status: Int = 200)

  /** A call Kinesis turns down, as it names the error. */
  final case class Refusal(code: String, message: String, status: Int = 400) extends RuntimeException(message)

  def ok(body: Array[Byte]): Answer = Answer(None, body)

  def field(g: JsonGenerator, name: String, value: String): Unit = g.writeStringField(name, value)

  def openShardOf(stream: SyntheticStream, shardId: String): SyntheticShard = {
    val shard = shardOf(stream, shardId)
    if (shard.isClosed)
      throw Refusal("ResourceInUseException", s"Shard $shardId of stream ${stream.spec.name} is closed")
    shard
  }

  def shardOf(stream: SyntheticStream, shardId: String): SyntheticShard =
    stream.shards
      .find(_.id == shardId)
      .getOrElse(throw Refusal("ResourceNotFoundException", s"Shard $shardId in stream ${stream.spec.name} not found"))

  def text(request: Map[String, Any], name: String): String = request.get(name) match {
    case Some(value: String) => value
    case _ => throw Refusal("InvalidArgumentException", s"$name is required")
  }

  /** The record of `shard` a sequence number names. */
  def recordNamed(shard: SyntheticShard, sequenceNumber: String): Long =
    shard.recordOf(sequenceNumber).filter(_ <= shard.end).getOrElse {
      throw Refusal("InvalidArgumentException", s"StartingSequenceNumber $sequenceNumber is not of shard ${shard.id}")
    }

  /** Where a start that names no sequence number is (`ShardIteratorType`, or SubscribeToShard's `Type`). */
  def startOf(shard: SyntheticShard, request: Map[String, Any]): Long =
    request.getOrElse("ShardIteratorType", request.getOrElse("Type", "")) match {
      case "TRIM_HORIZON" => 0L
      case "LATEST" => shard.end
      case "AT_TIMESTAMP" =>
        request.get("Timestamp") match {
          case Some(ms: Long) => shard.firstArrivedAtOrAfter(ms)
          case Some(seconds: Double) => shard.firstArrivedAtOrAfter((seconds * 1000).toLong)
          case _ => throw Refusal("InvalidArgumentException", "AT_TIMESTAMP needs a Timestamp")
        }
      case other => throw Refusal("InvalidArgumentException", s"Starting position type $other")
    }
}
