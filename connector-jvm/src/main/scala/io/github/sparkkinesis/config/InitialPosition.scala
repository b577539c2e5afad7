// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.text.{ParsePosition, SimpleDateFormat}
import java.time.format.DateTimeParseException
import java.time.Instant
import java.util.Locale

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, SequenceNumbers, ShardKey, ShardPosition}

/** Where a query with no checkpoint, or a batch read, starts reading: the option `initialPosition`. */
private[sparkkinesis] sealed trait InitialPosition extends Serializable

private[sparkkinesis] object InitialPosition {

  /** Records that arrive after the query starts. */
  case object Latest extends InitialPosition

  /** The oldest record each shard retains (`trim_horizon`, or its alias `earliest`). */
  case object TrimHorizon extends InitialPosition

  /** Records that arrived at or after an instant, inclusive. */
  final case class AtTimestamp(epochMillis: Long) extends InitialPosition {
    override def toString: String = s"AtTimestamp(${Instant.ofEpochMilli(epochMillis)})"
  }

  /**
   * After the positions of a streaming query's offset, as its progress shows it (`endOffset`): each shard
   * it names after its position; shards it does not name, from their start, but for those it read to their
   * ends (their children are named) and dropped.
   */
  final case class AfterOffset(offset: KinesisSourceOffset) extends InitialPosition {
    def positions: Map[ShardKey, ShardPosition] = offset.shards
    override def toString: String = s"AfterOffset(${offset.json})"
  }

  /**
   * At or after records a user names by sequence number, per shard (`at_sequence_number`,
   * `after_sequence_number`): each position is [[ShardPosition.At]] or [[ShardPosition.After]]. Shards not
   * named start as after a query's offset ([[AfterOffset]]): from their start, but for the ancestors of
   * named shards, which are taken as read to their ends.
   */
  final case class FromSequenceNumbers(positions: Map[ShardKey, ShardPosition]) extends InitialPosition {
    override def toString: String =
      positions.toSeq
        .sortBy { case (k, _) => (k.stream, k.shardId) }
        .map {
          case (k, ShardPosition.At(seq)) => s"${k.stream}/${k.shardId} at $seq"
          case (k, ShardPosition.After(seq, _)) => s"${k.stream}/${k.shardId} after $seq"
          case (k, other) => s"${k.stream}/${k.shardId} $other"
        }
        .mkString("FromSequenceNumbers(", ", ", ")")
  }

  /** The form the Databricks documentation calls the Java default: `06/25/2020 10:23:45 PDT`. */
  val DefaultTimestampFormat = "MM/dd/yyyy HH:mm:ss ZZZ"

  val Example = """{"at_timestamp": "06/25/2020 10:23:45 PDT"}"""

  val SequenceNumbersExample =
    """{"at_sequence_number": {"my-stream": {"shardId-000000000000": "4959..."}}, """ +
      """"after_sequence_number": {"my-stream": {"shardId-000000000001": "4959..."}}}"""

  private val AtKey = "at_sequence_number"
  private val AfterKey = "after_sequence_number"

  private val mapper = new ObjectMapper()

  /**
   * Parses `latest`, `trim_horizon`, `earliest`, the JSON form of `at_timestamp`:
   * `{"at_timestamp": "06/25/2020 10:23:45 PDT"}`, optionally with `"format"` (a `SimpleDateFormat` pattern;
   * without one, the default pattern and ISO-8601 (`2020-06-25T17:23:45Z`) are accepted), or a streaming
   * query's offset JSON (`{"v":2,"streams":{...}}`), or sequence numbers per shard:
   * `{"at_sequence_number": {"<stream>": {"<shardId>": "<seq>"}}, "after_sequence_number": {...}}`.
   */
  def parse(raw: String): Either[String, InitialPosition] =
    raw.trim.toLowerCase(Locale.ROOT) match {
      case "latest" => Right(Latest)
      case "trim_horizon" | "earliest" => Right(TrimHorizon)
      case "at_timestamp" =>
        Left("at_timestamp needs a timestamp, given as JSON")
      case s if s.startsWith("{") => parseJson(raw.trim)
      case _ => Left("expected latest, trim_horizon, earliest, at_timestamp as JSON, or a streaming query's offset")
    }

  private def parseJson(json: String): Either[String, InitialPosition] = {
    val node =
      try Some(mapper.readTree(json))
      catch { case NonFatal(_) => None }
    node match {
      case None => Left("it is not valid JSON")
      case Some(n) if n.isObject && (n.has("v") || n.has("streams")) && !n.has("at_timestamp") =>
        KinesisSourceOffset.parse(json).map(AfterOffset).left.map(p => s"it is no streaming query's offset: $p")
      case Some(n) if n.isObject && (n.has(AtKey) || n.has(AfterKey)) => parseSequenceNumbers(n)
      case Some(n) => parseAtTimestamp(n)
    }
  }

  private def parseAtTimestamp(node: JsonNode): Either[String, InitialPosition] =
    node match {
      case n if !n.isObject || !n.has("at_timestamp") =>
        Left(
          "the JSON has no field \"at_timestamp\", \"at_sequence_number\" or \"after_sequence_number\", nor " +
            "the fields \"v\" and \"streams\" of a query's offset")
      case n if !n.get("at_timestamp").isTextual => Left("\"at_timestamp\" must be a string")
      case n if n.has("format") && !n.get("format").isTextual => Left("\"format\" must be a string")
      case n =>
        val text = n.get("at_timestamp").asText()
        val explicitFormat = Option(n.get("format")).map(_.asText())
        val millis = explicitFormat match {
          case Some(format) =>
            dateFormat(format).flatMap(f => parseWith(text, f).toRight(s"'$text' does not match the format '$format'"))
          case None =>
            dateFormat(DefaultTimestampFormat).toOption
              .flatMap(parseWith(text, _))
              .orElse(parseIso(text))
              .toRight(s"""'$text' matches neither '$DefaultTimestampFormat' nor ISO-8601; add a "format" field""")
        }
        millis.map(AtTimestamp(_))
    }

  /** `{"at_sequence_number": {stream: {shard: seq}}, "after_sequence_number": {...}}`, a shard in at most one. */
  private def parseSequenceNumbers(node: JsonNode): Either[String, InitialPosition] = {
    val other = node.fieldNames().asScala.filterNot(f => f == AtKey || f == AfterKey).toSeq
    def of(field: String, position: String => ShardPosition): Either[String, Seq[(ShardKey, ShardPosition)]] =
      Option(node.get(field)) match {
        case None => Right(Nil)
        case Some(streams) if !streams.isObject => Left(s""""$field" must be an object of streams""")
        case Some(streams) =>
          val named = streams.properties().asScala.toSeq.map { e =>
            val stream = e.getKey
            val shards = e.getValue
            if (!shards.isObject) Left(s""""$field" has no object of shards for stream '$stream'""")
            else
              shards.properties().asScala.toSeq.foldLeft[Either[String, Seq[(ShardKey, ShardPosition)]]](Right(Nil)) {
                case (Left(p), _) => Left(p)
                case (Right(done), shard) =>
                  val seq = shard.getValue
                  if (!seq.isTextual || !SequenceNumbers.isDecimal(seq.asText))
                    Left(s""""$field" gives shard ${shard.getKey} of stream '$stream' $seq, which is no sequence """ +
                      "number: give the digits of one as a string")
                  else Right(done :+ (ShardKey(stream, shard.getKey) -> position(seq.asText)))
              }
          }
          named.collectFirst { case Left(p) => Left(p) }.getOrElse(Right(named.flatMap(_.toOption.toSeq.flatten)))
      }
    for {
      _ <- other.headOption
        .map(f => Left(s"""it names "$f", which is neither "$AtKey" nor "$AfterKey""""))
        .getOrElse(Right(()))
      at <- of(AtKey, ShardPosition.At(_))
      after <- of(AfterKey, ShardPosition.After(_))
      _ <- at.map(_._1).find(k => after.exists(_._1 == k)) match {
        case Some(k) =>
          Left(s"""shard ${k.shardId} of stream '${k.stream}' is in both "$AtKey" and "$AfterKey"; name it in one""")
        case None => Right(())
      }
      positions <- if (at.isEmpty && after.isEmpty) Left("it names no shard") else Right((at ++ after).toMap)
    } yield FromSequenceNumbers(positions)
  }

  private def dateFormat(pattern: String): Either[String, SimpleDateFormat] =
    try {
      val format = new SimpleDateFormat(pattern, Locale.US)
      format.setLenient(false)
      Right(format)
    } catch { case e: IllegalArgumentException => Left(s"'$pattern' is not a date format (${e.getMessage})") }

  private def parseWith(text: String, format: SimpleDateFormat): Option[Long] = {
    val position = new ParsePosition(0)
    val date = format.parse(text, position)
    if (date == null || position.getIndex != text.length) None else Some(date.getTime)
  }

  private def parseIso(text: String): Option[Long] =
    try Some(Instant.parse(text).toEpochMilli)
    catch { case _: DateTimeParseException => None }
}
