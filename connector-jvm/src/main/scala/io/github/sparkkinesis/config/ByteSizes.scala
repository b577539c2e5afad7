package io.github.sparkkinesis.config

import java.util.Locale

/**
 * Parses byte sizes such as `10mb`, `2gb`, `512k` or a plain number of bytes. Units are binary (1kb = 1024
 * bytes), as in Spark's own byte-size settings.
 */
private[sparkkinesis] object ByteSizes {
  private val Pattern = """(\d+(?:\.\d+)?)\s*([a-z]*)""".r

  private val unitsToBytes: Map[String, Double] = Map(
    "" -> 1d,
    "b" -> 1d,
    "k" -> 1024d,
    "kb" -> 1024d,
    "m" -> 1024d * 1024,
    "mb" -> 1024d * 1024,
    "g" -> 1024d * 1024 * 1024,
    "gb" -> 1024d * 1024 * 1024,
    "t" -> 1024d * 1024 * 1024 * 1024,
    "tb" -> 1024d * 1024 * 1024 * 1024
  )

  def parseBytes(raw: String): Either[String, Long] =
    raw.trim.replace(",", "").replace("_", "").toLowerCase(Locale.ROOT) match {
      case Pattern(number, unit) if unitsToBytes.contains(unit) =>
        val bytes = number.toDouble * unitsToBytes(unit)
        if (bytes >= Long.MaxValue.toDouble) Left("it is too large") else Right(math.round(bytes))
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
