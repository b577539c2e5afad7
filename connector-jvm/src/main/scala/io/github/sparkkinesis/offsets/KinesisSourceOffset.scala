// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import java.io.StringWriter

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.core.JsonFactory
import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import io.github.sparkkinesis.errors.KinesisErrors
import org.apache.spark.sql.connector.read.streaming.Offset

/**
 * The position of every shard of every stream of the query, and which incarnation of each stream it is, as
 * Spark stores it in the checkpoint's offset log. Its JSON is versioned and deterministic (keys sorted):
 * {{{
 * {"v":2,"streams":{"orders":{"arn":"arn:aws:kinesis:us-east-1:123456789012:stream/orders",
 *   "created":1593105825000,"shards":{"shardId-000000000000":{"kind":"after","seq":"4959..."},
 *                                     "shardId-000000000001":{"kind":"trim_horizon"}}}}}
 * }}}
 * Positions: `{"kind":"trim_horizon"}`, `{"kind":"at_timestamp","ms":1593105825000}`,
 * `{"kind":"after","seq":"..."}` and `{"kind":"shard_end"}`; when a batch ended inside a KPL aggregated
 * record, `{"kind":"after","seq":"...","sub":3}` (its user records up to the fourth were read), and the
 * offset is version 3, so that a connector that does not know `sub` refuses it rather than skip the rest of
 * the aggregate; without one it stays version 2, readable by earlier connectors. A stream's `arn` and `created` (its creation
 * time) tell a stream deleted and created again under the same name from the one the query was reading;
 * they are absent when they could not be learned (version 1 offsets had neither).
 */
private[sparkkinesis] final case class KinesisSourceOffset(
    shards: Map[ShardKey, ShardPosition],
    identities: Map[String, StreamIdentity] = Map.empty)
    extends Offset {

  override lazy val json: String = KinesisSourceOffset.toJson(this)
}

private[sparkkinesis] object KinesisSourceOffset {
  val Version = 3

  private val factory = new JsonFactory()
  private val mapper = new ObjectMapper(factory)

  /** An offset as a user may be shown one, for errors. */
  val Example =
    """{"v":2,"streams":{"my-stream":{"arn":"arn:aws:kinesis:...","created":1593105825000,""" +
      """"shards":{"shardId-000000000000":{"kind":"after","seq":"4959..."}}}}}"""

  def toJson(offset: KinesisSourceOffset): String = {
    val out = new StringWriter()
    val g = factory.createGenerator(out)
    val byStream = offset.shards.groupBy(_._1.stream)
    g.writeStartObject()
    val withinAggregates = offset.shards.values.exists {
      case ShardPosition.After(_, sub) => sub.isDefined
      case _ => false
    }
    g.writeNumberField("v", if (withinAggregates) 3 else 2)
    g.writeObjectFieldStart("streams")
    (byStream.keySet ++ offset.identities.keySet).toSeq.sorted.foreach { stream =>
      g.writeObjectFieldStart(stream)
      offset.identities.get(stream).foreach { identity =>
        g.writeStringField("arn", identity.arn)
        g.writeNumberField("created", identity.createdAtMillis)
      }
      g.writeObjectFieldStart("shards")
      byStream.getOrElse(stream, Map.empty).toSeq.sortBy(_._1.shardId).foreach { case (key, position) =>
        g.writeObjectFieldStart(key.shardId)
        position match {
          case ShardPosition.TrimHorizon => g.writeStringField("kind", "trim_horizon")
          case ShardPosition.AtTimestamp(ms) =>
            g.writeStringField("kind", "at_timestamp")
            g.writeNumberField("ms", ms)
          case ShardPosition.After(seq, sub) =>
            g.writeStringField("kind", "after")
            g.writeStringField("seq", seq)
            sub.foreach(g.writeNumberField("sub", _))
          case ShardPosition.ShardEnd => g.writeStringField("kind", "shard_end")
        }
        g.writeEndObject()
      }
      g.writeEndObject()
      g.writeEndObject()
    }
    g.writeEndObject()
    g.writeEndObject()
    g.close()
    out.toString
  }

  /**
   * Reads any version this connector ever wrote; fails with an example of the expected form.
   *
   * @param where the file `json` was read from, for the error, as " in ..."
   */
  def fromJson(json: String, where: String = ""): KinesisSourceOffset =
    parse(json).fold(problem => throw KinesisErrors.invalidOffset(json, where, problem, Example), identity)

  /** Reads any version this connector ever wrote, or says what is wrong with `json`. */
  def parse(json: String): Either[String, KinesisSourceOffset] =
    try Right(read(json))
    catch { case Unreadable(problem) => Left(problem) }

  private final case class Unreadable(problem: String) extends RuntimeException(problem, null, false, false)

  private def read(json: String): KinesisSourceOffset = {
    def fail(problem: String) = throw Unreadable(problem)
    val root =
      try mapper.readTree(json)
      catch { case NonFatal(e) => fail(s"it is not JSON (${e.getMessage.linesIterator.next()})") }
    if (root == null || !root.isObject) fail("it is not a JSON object")
    val version = Option(root.get("v")).filter(_.canConvertToInt).map(_.asInt)
    val streams = Option(root.get("streams")).filter(_.isObject)
    (version, streams) match {
      case (None, _) => fail("it has no version field \"v\"")
      case (Some(v), _) if v > Version =>
        fail(s"version $v is newer than this connector understands ($Version); use a newer connector")
      case (Some(v), _) if v < 1 => fail(s"version $v does not exist")
      case (_, None) => fail("it has no object \"streams\"")
      case (Some(1), Some(s)) =>
        KinesisSourceOffset(fields(s).flatMap { case (stream, shards) => shardsOf(stream, shards, fail) }.toMap)
      case (Some(_), Some(s)) => version2(s, fail)
    }
  }

  /** A stream's `{"<shardId>":<position>}`; version 1 has this directly under the stream's name. */
  private def shardsOf(stream: String, shards: JsonNode, fail: String => Nothing): Seq[(ShardKey, ShardPosition)] = {
    if (shards == null || !shards.isObject) fail(s"stream '$stream' has no object of shards")
    fields(shards).map { case (shardId, node) =>
      ShardKey(stream, shardId) -> position(node, s"$stream/$shardId", fail)
    }
  }

  private def version2(streams: JsonNode, fail: String => Nothing): KinesisSourceOffset = {
    val perStream = fields(streams).map { case (stream, node) =>
      if (!node.isObject) fail(s"stream '$stream' is not an object")
      val identity = (Option(node.get("arn")), Option(node.get("created"))) match {
        case (Some(arn), Some(created)) if arn.isTextual && created.canConvertToLong =>
          Some(stream -> StreamIdentity(arn.asText, created.asLong))
        case (None, None) => None
        case _ => fail(s"""stream '$stream' needs both a string "arn" and a number "created", or neither""")
      }
      (shardsOf(stream, node.get("shards"), fail), identity)
    }
    KinesisSourceOffset(perStream.flatMap(_._1).toMap, perStream.flatMap(_._2).toMap)
  }

  private def fields(node: JsonNode): Seq[(String, JsonNode)] =
    node.properties().asScala.map(e => e.getKey -> e.getValue).toSeq

  private def position(node: JsonNode, where: String, fail: String => Nothing): ShardPosition = {
    def text(field: String) =
      Option(node.get(field)).filter(_.isTextual).map(_.asText).getOrElse(fail(s"""$where has no string "$field""""))
    text("kind") match {
      case "trim_horizon" => ShardPosition.TrimHorizon
      case "at_timestamp" =>
        Option(node.get("ms"))
          .filter(_.canConvertToLong)
          .map(n => ShardPosition.AtTimestamp(n.asLong))
          .getOrElse(fail(s"""$where has no number "ms""""))
      case "after" =>
        val seq = text("seq")
        if (seq.isEmpty || !seq.forall(_.isDigit)) fail(s"$where has a sequence number that is not a number: $seq")
        val sub = Option(node.get("sub")).map { n =>
          if (!n.canConvertToLong || n.asLong < 0) fail(s"$where has a sub-sequence number that is not a number: $n")
          n.asLong
        }
        ShardPosition.After(seq, sub)
      case "shard_end" => ShardPosition.ShardEnd
      case other => fail(s"$where has an unknown kind '$other'")
    }
  }
}
