// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.text.{ParsePosition, SimpleDateFormat}
import java.time.format.DateTimeParseException
import java.time.Instant
import java.util.Locale

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper

/** Where a query with no checkpoint starts reading: the option `initialPosition`. */
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

  /** The form the Databricks documentation calls the Java default: `06/25/2020 10:23:45 PDT`. */
  val DefaultTimestampFormat = "MM/dd/yyyy HH:mm:ss ZZZ"

  val Example = """{"at_timestamp": "06/25/2020 10:23:45 PDT"}"""

  private val mapper = new ObjectMapper()

  /**
   * Parses `latest`, `trim_horizon`, `earliest` or the JSON form of `at_timestamp`:
   * `{"at_timestamp": "06/25/2020 10:23:45 PDT"}`, optionally with `"format"` (a `SimpleDateFormat` pattern).
   * Without a format, the default pattern and ISO-8601 (`2020-06-25T17:23:45Z`) are accepted.
   */
  def parse(raw: String): Either[String, InitialPosition] =
    raw.trim.toLowerCase(Locale.ROOT) match {
      case "latest" => Right(Latest)
      case "trim_horizon" | "earliest" => Right(TrimHorizon)
      case "at_timestamp" =>
        Left("at_timestamp needs a timestamp, given as JSON")
      case s if s.startsWith("{") => parseAtTimestamp(raw.trim)
      case _ => Left("expected latest, trim_horizon, earliest, or at_timestamp as JSON")
    }

  private def parseAtTimestamp(json: String): Either[String, InitialPosition] = {
    val node =
      try Some(mapper.readTree(json))
      catch { case NonFatal(_) => None }
    node match {
      case None => Left("it is not valid JSON")
      case Some(n) if !n.isObject || !n.has("at_timestamp") => Left("the JSON has no field \"at_timestamp\"")
      case Some(n) if !n.get("at_timestamp").isTextual => Left("\"at_timestamp\" must be a string")
      case Some(n) if n.has("format") && !n.get("format").isTextual => Left("\"format\" must be a string")
      case Some(n) =>
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
