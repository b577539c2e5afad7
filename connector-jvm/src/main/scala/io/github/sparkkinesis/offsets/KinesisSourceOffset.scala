package io.github.sparkkinesis.offsets

import java.io.StringWriter

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.core.JsonFactory
import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import io.github.sparkkinesis.errors.KinesisErrors
import org.apache.spark.sql.connector.read.streaming.Offset

/**
 * The position of every shard of every stream of the query, as Spark stores it in the checkpoint's offset
 * log. Its JSON is versioned and deterministic (keys sorted), for example
 * {{{
 * {"v":1,"streams":{"orders":{"shardId-000000000000":{"kind":"after","seq":"4959..."},
 *                             "shardId-000000000001":{"kind":"trim_horizon"}}}}
 * }}}
 * Positions: `{"kind":"trim_horizon"}`, `{"kind":"at_timestamp","ms":1593105825000}`,
 * `{"kind":"after","seq":"..."}` and `{"kind":"shard_end"}`.
 */
final case class KinesisSourceOffset(shards: Map[ShardKey, ShardPosition]) extends Offset {

  override lazy val json: String = KinesisSourceOffset.toJson(this)
}

object KinesisSourceOffset {
  val Version = 1

  private val factory = new JsonFactory()
  private val mapper = new ObjectMapper(factory)

  def toJson(offset: KinesisSourceOffset): String = {
    val out = new StringWriter()
    val g = factory.createGenerator(out)
    g.writeStartObject()
    g.writeNumberField("v", Version)
    g.writeObjectFieldStart("streams")
    offset.shards.groupBy(_._1.stream).toSeq.sortBy(_._1).foreach { case (stream, shards) =>
      g.writeObjectFieldStart(stream)
      shards.toSeq.sortBy(_._1.shardId).foreach { case (key, position) =>
        g.writeObjectFieldStart(key.shardId)
        position match {
          case ShardPosition.TrimHorizon => g.writeStringField("kind", "trim_horizon")
          case ShardPosition.AtTimestamp(ms) =>
            g.writeStringField("kind", "at_timestamp")
            g.writeNumberField("ms", ms)
          case ShardPosition.After(seq) =>
            g.writeStringField("kind", "after")
            g.writeStringField("seq", seq)
          case ShardPosition.ShardEnd => g.writeStringField("kind", "shard_end")
        }
        g.writeEndObject()
      }
      g.writeEndObject()
    }
    g.writeEndObject()
    g.writeEndObject()
    g.close()
    out.toString
  }

  /** Reads any version this connector ever wrote; fails with an example of the expected form. */
  def fromJson(json: String): KinesisSourceOffset = {
    def fail(problem: String) = throw KinesisErrors.invalidOffset(json, problem)
    val root =
      try mapper.readTree(json)
      catch { case NonFatal(e) => fail(s"it is not JSON (${e.getMessage.linesIterator.next()})") }
    if (root == null || !root.isObject) fail("it is not a JSON object")
    val version = Option(root.get("v")).filter(_.canConvertToInt).map(_.asInt)
    version match {
      case Some(Version) =>
      case Some(v) => fail(s"version $v is newer than this connector understands ($Version); use a newer connector")
      case None => fail("it has no version field \"v\"")
    }
    val streams = Option(root.get("streams")).filter(_.isObject).getOrElse(fail("it has no object \"streams\""))
    val shards = for {
      (stream, shardNodes) <- fields(streams)
      _ = if (!shardNodes.isObject) fail(s"stream '$stream' is not an object of shards")
      (shardId, node) <- fields(shardNodes)
    } yield ShardKey(stream, shardId) -> position(node, s"$stream/$shardId", fail)
    KinesisSourceOffset(shards.toMap)
  }

  private def fields(node: JsonNode): Seq[(String, JsonNode)] =
    node.properties().asScala.map(e => e.getKey -> e.getValue).toSeq

  private def position(node: JsonNode, where: String, fail: String => Nothing): ShardPosition = {
    def text(field: String) =
      Option(node.get(field)).filter(_.isTextual).map(_.asText).getOrElse(fail(s"$where has no string \"$field\""))
    text("kind") match {
      case "trim_horizon" => ShardPosition.TrimHorizon
      case "at_timestamp" =>
        Option(node.get("ms"))
          .filter(_.canConvertToLong)
          .map(n => ShardPosition.AtTimestamp(n.asLong))
          .getOrElse(fail(s"$where has no number \"ms\""))
      case "after" =>
        val seq = text("seq")
        if (seq.isEmpty || !seq.forall(_.isDigit)) fail(s"$where has a sequence number that is not a number: $seq")
        ShardPosition.After(seq)
      case "shard_end" => ShardPosition.ShardEnd
      case other => fail(s"$where has an unknown kind '$other'")
    }
  }
}
