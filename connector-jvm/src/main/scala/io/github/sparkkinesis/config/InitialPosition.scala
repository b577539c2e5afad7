// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.text.{ParsePosition, SimpleDateFormat}
import java.time.format.DateTimeParseException
import java.time.Instant
import java.util.Locale

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}

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

  /** The form the Databricks documentation calls the Java default: `06/25/2020 10:23:45 PDT`. */
  val DefaultTimestampFormat = "MM/dd/yyyy HH:mm:ss ZZZ"

  val Example = """{"at_timestamp": "06/25/2020 10:23:45 PDT"}"""

  private val mapper = new ObjectMapper()

  /**
   * Parses `latest`, `trim_horizon`, `earliest`, the JSON form of `at_timestamp`:
   * `{"at_timestamp": "06/25/2020 10:23:45 PDT"}`, optionally with `"format"` (a `SimpleDateFormat` pattern;
   * without one, the default pattern and ISO-8601 (`2020-06-25T17:23:45Z`) are accepted), or a streaming
   * query's offset JSON (`{"v":2,"streams":{...}}`).
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
      case Some(n) => parseAtTimestamp(n)
    }
  }

  private def parseAtTimestamp(node: JsonNode): Either[String, InitialPosition] =
    node match {
      case n if !n.isObject || !n.has("at_timestamp") =>
        Left("the JSON has neither a field \"at_timestamp\" nor the fields \"v\" and \"streams\" of a query's offset")
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
