// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.util.Locale

/**
 * Parses byte sizes such as `10mb`, `2gb`, `512k` or a plain number of bytes. Units are binary (1kb = 1024
 * bytes), as in Spark's own byte-size settings.
 */
private[sparkkinesis] object ByteSizes {
  private val Pattern = """(\d+(?:\.\d+)?)\s*([a-z]*)""".r

  /** Each unit a size may end with, and its bytes. */
  val units: Map[String, Long] = Map(
    "" -> 1L,
    "b" -> 1L,
    "k" -> (1L << 10),
    "kb" -> (1L << 10),
    "m" -> (1L << 20),
    "mb" -> (1L << 20),
    "g" -> (1L << 30),
    "gb" -> (1L << 30),
    "t" -> (1L << 40),
    "tb" -> (1L << 40)
  )

  def parseBytes(raw: String): Either[String, Long] =
    raw.trim.replace(",", "").replace("_", "").toLowerCase(Locale.ROOT) match {
      case Pattern(number, unit) if units.contains(unit) =>
        // Exact: a double would round a number of bytes past 2^53 (and past 2^63 - 1 up to 2^63).
        val bytes = BigDecimal(number) * units(unit)
        if (bytes > BigDecimal(Long.MaxValue)) Left("it is too large")
        else Right(bytes.setScale(0, BigDecimal.RoundingMode.HALF_UP).toLongExact)
      case Pattern(_, unit) => Left(s"'$unit' is not a size unit (use b, kb, mb, gb or tb)")
      case _ => Left("expected a number of bytes, optionally followed by a unit such as mb or gb")
    }

  /** A short form for messages and logs: `10mb`, `2gb`, `1536b`. */
  def format(bytes: Long): String = {
    val units = Seq("tb" -> (1L << 40), "gb" -> (1L << 30), "mb" -> (1L << 20), "kb" -> (1L << 10))
    units
      .collectFirst { case (unit, size) if bytes > 0 && bytes % size == 0 => s"${bytes / size}$unit" }
      .getOrElse(s"${bytes}b")
  }
}
