// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.util.Locale

/** Parses duration strings such as `200ms`, `1s`, `2m`, `1h` into milliseconds. */
private[sparkkinesis] object Durations {
  private val Pattern = """(\d+(?:\.\d+)?)\s*([a-z]+)""".r

  private val unitsToMillis: Map[String, Double] = Map(
    "ms" -> 1d,
    "s" -> 1000d,
    "sec" -> 1000d,
    "secs" -> 1000d,
    "m" -> 60000d,
    "min" -> 60000d,
    "mins" -> 60000d,
    "h" -> 3600000d,
    "d" -> 86400000d
  )

  def parseMillis(raw: String): Either[String, Long] =
    raw.trim.toLowerCase(Locale.ROOT) match {
      case Pattern(number, unit) if unitsToMillis.contains(unit) =>
        Right(math.round(number.toDouble * unitsToMillis(unit)))
      case Pattern(_, unit) => Left(s"'$unit' is not a duration unit (use ms, s, m, h or d)")
      case _ => Left("expected a number followed by a unit")
    }

  /** A short form for messages and logs: `400ms`, `10s`, `2m`. */
  def format(millis: Long): String =
    if (millis % 3600000 == 0 && millis > 0) s"${millis / 3600000}h"
    else if (millis % 60000 == 0 && millis > 0) s"${millis / 60000}m"
    else if (millis % 1000 == 0 && millis > 0) s"${millis / 1000}s"
    else s"${millis}ms"
}
