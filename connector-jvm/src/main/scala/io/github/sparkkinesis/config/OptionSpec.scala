package io.github.sparkkinesis.config

import java.util.Locale

import scala.util.Try

/**
 * One option the connector accepts.
 *
 * @param key     the name users write; matched case-insensitively
 * @param default the default as documented, or None when the option has none
 * @param doc     one line for the README's option table
 * @param example a good value, shown in error messages
 * @param secret  whether the value must never be shown again
 * @param parse   turns the raw string into a value, or says what is wrong with it
 */
private[sparkkinesis] final case class OptionSpec[T](
    key: String,
    default: Option[String],
    doc: String,
    example: String,
    secret: Boolean,
    parse: String => Either[String, T]
) {

  def lowerKey: String = key.toLowerCase(Locale.ROOT)
}

/** Parsers shared by the option declarations. Each returns Left with what was expected. */
private[sparkkinesis] object OptionParsers {

  val string: String => Either[String, String] = raw => if (raw.trim.isEmpty) Left("it is empty") else Right(raw.trim)

  val boolean: String => Either[String, Boolean] = raw =>
    raw.trim.toLowerCase(Locale.ROOT) match {
      case "true" => Right(true)
      case "false" => Right(false)
      case _ => Left("expected true or false")
    }

  /** A value `parse` reads, refused outside [min, max] with the bound, as `show` writes it. */
  private def bounded[T](parse: String => Either[String, T], min: T, max: T, show: T => String)(implicit
      order: Ordering[T]): String => Either[String, T] = raw =>
    parse(raw).flatMap {
      case v if order.lt(v, min) => Left(s"it must be at least ${show(min)}")
      case v if order.gt(v, max) => Left(s"it must be at most ${show(max)}")
      case v => Right(v)
    }

  private val wholeNumber: String => Either[String, Long] =
    raw => Try(raw.trim.replace(",", "").replace("_", "").toLong).toOption.toRight("expected a whole number")

  def long(min: Long, max: Long): String => Either[String, Long] =
    bounded(wholeNumber, min, max, (n: Long) => n.toString)

  def int(min: Int, max: Int): String => Either[String, Int] = raw => long(min, max)(raw).map(_.toInt)

  def durationMillis(min: Long, max: Long): String => Either[String, Long] =
    bounded(Durations.parseMillis, min, max, Durations.format)

  /** A duration of at least `min`, or `inf` (None): no limit. */
  def durationOrInfinite(min: Long): String => Either[String, Option[Long]] = raw =>
    if (raw.trim.equalsIgnoreCase("inf")) Right(None)
    else durationMillis(min, Long.MaxValue)(raw).map(Some(_)).left.map(_ + ", or inf")

  def bytes(min: Long, max: Long): String => Either[String, Long] =
    bounded(ByteSizes.parseBytes, min, max, ByteSizes.format)

  /** A decimal number `x` with `min < x <= max` when `minExclusive`, else `min <= x <= max`. */
  def decimal(min: Double, max: Double, minExclusive: Boolean): String => Either[String, Double] = raw =>
    Try(raw.trim.toDouble).toOption.filterNot(d => d.isNaN || d.isInfinite) match {
      case None => Left("expected a decimal number")
      case Some(d) if minExclusive && d <= min => Left(s"it must be greater than $min")
      case Some(d) if d < min => Left(s"it must be at least $min")
      case Some(d) if d > max => Left(s"it must be at most $max")
      case Some(d) => Right(d)
    }

  /** A Kinesis stream name: 1 to 128 of letters, digits, `_`, `.` and `-`. */
  private val StreamName = "[a-zA-Z0-9_.-]{1,128}".r

  val streamNames: String => Either[String, Seq[String]] = raw => {
    val names = raw.split(",", -1).map(_.trim).toSeq
    names.find(n => !StreamName.pattern.matcher(n).matches()) match {
      case Some("") => Left("it has an empty stream name; separate names with single commas")
      case Some(bad) => Left(s"'$bad' is not a stream name (1 to 128 letters, digits, '_', '.' or '-')")
      case None if names.distinct.size != names.size => Left("a stream is named twice")
      case None => Right(names)
    }
  }

  private val ConsumerNameChars = "[a-zA-Z0-9_.-]*".r

  /** Consumer names, comma-separated; each of letters, digits, `_`, `.` and `-`. */
  val consumerNames: String => Either[String, Seq[String]] = raw => {
    val names = raw.split(",", -1).map(_.trim).toSeq
    names.find(n => n.isEmpty || !ConsumerNameChars.pattern.matcher(n).matches()) match {
      case Some("") => Left("it has an empty consumer name; separate names with single commas")
      case Some(bad) => Left(s"'$bad' is not a consumer name (letters, digits, '_', '.' or '-')")
      case None => Right(names)
    }
  }

  /** A prefix of consumer names: empty, or letters, digits, `_`, `.` and `-`. */
  val consumerNamePrefix: String => Either[String, String] = raw =>
    if (ConsumerNameChars.pattern.matcher(raw.trim).matches()) Right(raw.trim)
    else Left("a consumer name prefix has only letters, digits, '_', '.' or '-'")

  private val RoleArnPattern = """arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+""".r

  val roleArn: String => Either[String, String] = raw =>
    if (RoleArnPattern.pattern.matcher(raw.trim).matches()) Right(raw.trim)
    else Left("it is not an IAM role ARN (arn:aws:iam::<12-digit account>:role/<name>)")

  private val SessionNamePattern = """[\w+=,.@-]{2,64}""".r

  val roleSessionName: String => Either[String, String] = raw =>
    if (SessionNamePattern.pattern.matcher(raw.trim).matches()) Right(raw.trim)
    else Left("a role session name has 2 to 64 of letters, digits and +=,.@-_")

  val endpoint: String => Either[String, String] = raw => {
    val trimmed = raw.trim
    val withScheme = if (trimmed.contains("://")) trimmed else s"https://$trimmed"
    try {
      val uri = new java.net.URI(withScheme)
      if (uri.getHost == null) Left("it has no host")
      else if (!Set("http", "https").contains(uri.getScheme.toLowerCase(Locale.ROOT)))
        Left("the scheme must be http or https")
      else Right(withScheme)
    } catch { case e: java.net.URISyntaxException => Left(s"it is not a URL (${e.getReason})") }
  }
}
