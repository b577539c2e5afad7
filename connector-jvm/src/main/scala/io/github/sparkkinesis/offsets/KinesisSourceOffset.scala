// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import java.io.StringWriter

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.core.{JsonFactory, JsonGenerator}
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
 * the aggregate; without one it stays version 2, readable by earlier connectors. A shard that starts at a
 * record a user named (`initialPosition` `at_sequence_number`) and is not read yet is `{"kind":"at","seq":"..."}`,
 * and the offset is version 4, as connectors before it would refuse the kind anyway but could not say why.
 *
 * An offset of more than [[KinesisSourceOffset.CompactAbove]] shards is version 5, whatever kinds it holds:
 * each stream's shards are one string ([[CompactShards]]: 28 to 35 bytes a shard with sequence numbers of
 * 56 digits, where the form above takes 105, 1 MB at 10,000 shards, which Spark writes to the offset log
 * every batch), while `v`, `streams`, `arn` and `created` stay JSON, so the offset is still recognisably one
 * and names its streams:
 * {{{
 * {"v":5,"streams":{"orders":{"arn":"arn:aws:kinesis:us-east-1:123456789012:stream/orders",
 *   "created":1593105825000,"shards":"BRQAGAIF2SEu0FmC_PWmjWiO...Chefrw"}}}
 * }}}
 * Smaller offsets keep the form above: there it costs the offset log at most about 10 KB a batch, people
 * read it in progress reports and pass it as `initialPosition`, and connectors before version 5 can still
 * read such a checkpoint. A query whose shards grow past the limit changes form between two batches; both
 * read back the same.
 *
 * The rule: an offset is written at the lowest version that has every kind it holds, in the form its size
 * calls for, so a connector reads what it knows and refuses, naming the version, what it does not. A stream's
 * `arn` and `created` (its creation time) tell a stream deleted and created again under the same name from
 * the one the query was reading; they are absent when they could not be learned (version 1 offsets had
 * neither).
 */
private[sparkkinesis] final case class KinesisSourceOffset(
    shards: Map[ShardKey, ShardPosition],
    identities: Map[String, StreamIdentity] = Map.empty)
    extends Offset {

  override lazy val json: String = KinesisSourceOffset.toJson(this)
}

private[sparkkinesis] object KinesisSourceOffset {
  val Version = 5

  /** Offsets of more shards than this are written compact, as version 5 (see the class's comment). */
  val CompactAbove = 100

  /** The first version whose streams hold their shards as one string. */
  private val CompactVersion = 5

  private val factory = new JsonFactory()
  private val mapper = new ObjectMapper(factory)

  /** An offset as a user may be shown one, for errors. */
  val Example =
    """{"v":2,"streams":{"my-stream":{"arn":"arn:aws:kinesis:...","created":1593105825000,""" +
      """"shards":{"shardId-000000000000":{"kind":"after","seq":"4959..."}}}}}"""

  def toJson(offset: KinesisSourceOffset): String = toJson(offset, CompactAbove)

  /** As `toJson`, compact above `compactAbove` shards, which tests choose. */
  private[offsets] def toJson(offset: KinesisSourceOffset, compactAbove: Int): String = {
    val compact = offset.shards.size > compactAbove
    val out = new StringWriter()
    val g = factory.createGenerator(out)
    val byStream = offset.shards.groupBy(_._1.stream)
    g.writeStartObject()
    g.writeNumberField("v", if (compact) CompactVersion else versionOf(offset.shards.values))
    g.writeObjectFieldStart("streams")
    (byStream.keySet ++ offset.identities.keySet).toSeq.sorted.foreach { stream =>
      g.writeObjectFieldStart(stream)
      offset.identities.get(stream).foreach { identity =>
        g.writeStringField("arn", identity.arn)
        g.writeNumberField("created", identity.createdAtMillis)
      }
      val shards = byStream.getOrElse(stream, Map.empty)
      if (compact) g.writeStringField("shards", CompactShards.encode(shards.map { case (k, p) => k.shardId -> p }))
      else writeShards(g, shards)
      g.writeEndObject()
    }
    g.writeEndObject()
    g.writeEndObject()
    g.close()
    out.toString
  }

  /** A stream's shards as versions 1 to 4 write them: `{"<shardId>":<position>}`, sorted by id. */
  private def writeShards(g: JsonGenerator, shards: Map[ShardKey, ShardPosition]): Unit = {
    g.writeObjectFieldStart("shards")
    shards.toSeq.sortBy(_._1.shardId).foreach { case (key, position) =>
      g.writeObjectFieldStart(key.shardId)
      position match {
        case ShardPosition.TrimHorizon => g.writeStringField("kind", "trim_horizon")
        case ShardPosition.AtTimestamp(ms) =>
          g.writeStringField("kind", "at_timestamp")
          g.writeNumberField("ms", ms)
        case ShardPosition.At(seq) =>
          g.writeStringField("kind", "at")
          g.writeStringField("seq", seq)
        case ShardPosition.After(seq, sub) =>
          g.writeStringField("kind", "after")
          g.writeStringField("seq", seq)
          sub.foreach(g.writeNumberField("sub", _))
        case ShardPosition.ShardEnd => g.writeStringField("kind", "shard_end")
      }
      g.writeEndObject()
    }
    g.writeEndObject()
  }

  /** The lowest version of the readable form with every kind of position given: 4 with `at`, 3 with `sub`, else 2. */
  private def versionOf(positions: Iterable[ShardPosition]): Int =
    positions.foldLeft(2) {
      case (_, ShardPosition.At(_)) => 4
      case (v, ShardPosition.After(_, Some(_))) => math.max(v, 3)
      case (v, _) => v
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
        KinesisSourceOffset(fields(s).flatMap { case (stream, shards) => shardsOf(stream, shards, 1, fail) }.toMap)
      case (Some(v), Some(s)) => version2(s, v, fail)
    }
  }

  /**
   * A stream's shards: from version 5 on, one string (`CompactShards`); before, `{"<shardId>":<position>}`,
   * which version 1 has directly under the stream's name.
   */
  private def shardsOf(
      stream: String,
      shards: JsonNode,
      version: Int,
      fail: String => Nothing): Seq[(ShardKey, ShardPosition)] =
    if (version >= CompactVersion) {
      if (shards == null || !shards.isTextual)
        fail(s"stream '$stream' has no string of shards, which version $version offsets hold")
      CompactShards
        .decode(shards.asText)
        .fold(p => fail(s"stream '$stream' has a damaged string of shards: $p"), identity)
        .map { case (shardId, position) => ShardKey(stream, shardId) -> position }
    } else {
      if (shards == null || !shards.isObject) fail(s"stream '$stream' has no object of shards")
      fields(shards).map { case (shardId, node) =>
        ShardKey(stream, shardId) -> position(node, s"$stream/$shardId", version, fail)
      }
    }

  private def version2(streams: JsonNode, version: Int, fail: String => Nothing): KinesisSourceOffset = {
    val perStream = fields(streams).map { case (stream, node) =>
      if (!node.isObject) fail(s"stream '$stream' is not an object")
      val identity = (Option(node.get("arn")), Option(node.get("created"))) match {
        case (Some(arn), Some(created)) if arn.isTextual && created.canConvertToLong =>
          Some(stream -> StreamIdentity(arn.asText, created.asLong))
        case (None, None) => None
        case _ => fail(s"""stream '$stream' needs both a string "arn" and a number "created", or neither""")
      }
      (shardsOf(stream, node.get("shards"), version, fail), identity)
    }
    KinesisSourceOffset(perStream.flatMap(_._1).toMap, perStream.flatMap(_._2).toMap)
  }

  private def fields(node: JsonNode): Seq[(String, JsonNode)] =
    node.properties().asScala.map(e => e.getKey -> e.getValue).toSeq

  private def position(node: JsonNode, where: String, version: Int, fail: String => Nothing): ShardPosition = {
    def text(field: String) =
      Option(node.get(field)).filter(_.isTextual).map(_.asText).getOrElse(fail(s"""$where has no string "$field""""))
    def sequenceNumber() = {
      val seq = text("seq")
      if (!SequenceNumbers.isDecimal(seq)) fail(s"$where has a sequence number that is not a number: $seq")
      seq
    }
    text("kind") match {
      case "trim_horizon" => ShardPosition.TrimHorizon
      case "at_timestamp" =>
        Option(node.get("ms"))
          .filter(_.canConvertToLong)
          .map(n => ShardPosition.AtTimestamp(n.asLong))
          .getOrElse(fail(s"""$where has no number "ms""""))
      case "at" if version < 4 => fail(s"$where has the kind 'at', which only version 4 offsets have")
      case "at" => ShardPosition.At(sequenceNumber())
      case "after" =>
        val seq = sequenceNumber()
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
