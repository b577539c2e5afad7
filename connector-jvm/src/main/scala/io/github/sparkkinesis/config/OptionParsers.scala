// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.util.Locale

import scala.collection.immutable.ListMap
import scala.util.matching.Regex
import scala.util.Try

/** The rules of the option declarations. Each parse returns Left with what was expected. */
private[sparkkinesis] object OptionParsers {

  val string: OptionRule[String] =
    new OptionRule("text", Nil, raw => if (raw.trim.isEmpty) Left("it is empty") else Right(raw.trim))

  val boolean: OptionRule[Boolean] = new OptionRule(
    "flag",
    Nil,
    raw =>
      raw.trim.toLowerCase(Locale.ROOT) match {
        case "true" => Right(true)
        case "false" => Right(false)
        case _ => Left("expected true or false")
      })

  /** One of `values`, given in any case. */
  def choice[T](values: (String, T)*): OptionRule[T] = {
    val names = values.map(_._1)
    val expected = s"expected ${names.init.mkString(", ")} or ${names.last}"
    new OptionRule(
      "choice",
      Seq("values" -> names),
      raw => values.collectFirst { case (n, v) if n == raw.trim.toLowerCase(Locale.ROOT) => v }.toRight(expected))
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

  def long(min: Long, max: Long): OptionRule[Long] =
    new OptionRule("whole", Seq("min" -> min, "max" -> max), bounded(wholeNumber, min, max, (n: Long) => n.toString))

  def int(min: Int, max: Int): OptionRule[Int] = long(min, max).map(_.toInt)

  def durationMillis(min: Long, max: Long): OptionRule[Long] = new OptionRule(
    "duration",
    Seq("minMs" -> min, "maxMs" -> max, "inf" -> false),
    bounded(Durations.parseMillis, min, max, Durations.format))

  /** A duration of at least `min`, or `inf` (None): no limit. */
  def durationOrInfinite(min: Long): OptionRule[Option[Long]] = {
    val finite = durationMillis(min, Long.MaxValue)
    new OptionRule(
      "duration",
      Seq("minMs" -> min, "maxMs" -> Long.MaxValue, "inf" -> true),
      raw =>
        if (raw.trim.equalsIgnoreCase("inf")) Right(None)
        else finite(raw).map(Some(_)).left.map(_ + ", or inf")
    )
  }

  def bytes(min: Long, max: Long): OptionRule[Long] = new OptionRule(
    "size",
    Seq("min" -> min, "max" -> max, "units" -> ListMap(ByteSizes.units.toSeq.sortBy(u => (u._2, u._1)): _*)),
    bounded(ByteSizes.parseBytes, min, max, ByteSizes.format)
  )

  /** A decimal number `x` in `unit` with `min < x <= max` when `minExclusive`, else `min <= x <= max`. */
  def decimal(min: Double, max: Double, minExclusive: Boolean, unit: String): OptionRule[Double] = new OptionRule(
    "decimal",
    Seq("min" -> min, "max" -> max, "minExclusive" -> minExclusive, "unit" -> unit),
    raw =>
      Try(raw.trim.toDouble).toOption.filterNot(d => d.isNaN || d.isInfinite) match {
        case None => Left("expected a decimal number")
        case Some(d) if minExclusive && d <= min => Left(s"it must be greater than $min")
        case Some(d) if d < min => Left(s"it must be at least $min")
        case Some(d) if d > max => Left(s"it must be at most $max")
        case Some(d) => Right(d)
      }
  )

  /** A value that matches `pattern` whole, once trimmed (`accepted` says what that is), else `refusal`. */
  def matching(pattern: String, accepted: String, refusal: String): OptionRule[String] = {
    val compiled = java.util.regex.Pattern.compile(pattern)
    new OptionRule(
      "pattern",
      Seq("regex" -> pattern, "accepted" -> accepted),
      raw => if (compiled.matcher(raw.trim).matches()) Right(raw.trim) else Left(refusal))
  }

  /**
   * Names of a kind of thing (`what`: stream, consumer), comma-separated, each matching `name` whole
   * (`accepted` says what that is); with `distinct`, none twice. `noun` is what each is of the thing: its
   * name, its ARN, its id. `more` describes further rules, kept by those who take the names.
   */
  private def names(
      what: String,
      name: Regex,
      accepted: String,
      distinct: Boolean,
      noun: String,
      more: (String, Any)*): OptionRule[Seq[String]] =
    new OptionRule(
      "names",
      Seq("what" -> what, "noun" -> noun, "regex" -> name.regex, "accepted" -> accepted, "distinct" -> distinct) ++
        more,
      raw => {
        val names = raw.split(",", -1).map(_.trim).toSeq
        names.find(n => n.isEmpty || !name.pattern.matcher(n).matches()) match {
          case Some("") => Left(s"it has an empty $what $noun; separate ${noun}s with single commas")
          case Some(bad) => Left(s"'$bad' is not a $what $noun ($accepted)")
          case None if distinct && names.distinct.size != names.size => Left(s"a $what is named twice")
          case None => Right(names)
        }
      }
    )

  val streamNames: OptionRule[Seq[String]] =
    names("stream", KinesisNames.Stream, KinesisNames.StreamAccepted, distinct = true, noun = "name")

  /** Stream ARNs, none twice; `streamARN` checks what they say together (one name each, one region). */
  val streamArns: OptionRule[Seq[StreamArn]] =
    names("stream", StreamArn.Pattern.r, StreamArn.Accepted, distinct = true, noun = "ARN")
      .map(_.flatMap(StreamArn.parse))

  /**
   * Consumers registered beforehand: names or consumer ARNs, as `registeredConsumerIdType` says, which is
   * checked once both options are read.
   */
  val consumerIds: OptionRule[Seq[String]] =
    names(
      "consumer",
      s"(?:${KinesisNames.ConsumerChars.regex}|${StreamArn.ConsumerPattern})".r,
      s"a consumer name (${KinesisNames.ConsumerAccepted}) or a consumer ARN",
      distinct = false,
      noun = "id"
    )

  /** Consumer names: their characters here; their length once the query's id may stand in for them. */
  val consumerNames: OptionRule[Seq[String]] = names(
    "consumer",
    KinesisNames.ConsumerChars,
    KinesisNames.ConsumerAccepted,
    distinct = false,
    noun = "name",
    "maxLength" -> KinesisNames.MaxConsumerNameLength,
    "queryIdLength" -> KinesisNames.QueryIdLength
  )

  /** A prefix of consumer names: empty, or letters, digits, `_`, `.` and `-`. */
  val consumerNamePrefix: OptionRule[String] = matching(
    KinesisNames.ConsumerChars.regex,
    s"${KinesisNames.ConsumerAccepted} (or nothing)",
    s"a consumer name prefix has only ${KinesisNames.ConsumerAccepted}")

  val roleArn: OptionRule[String] = matching(
    """arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+""",
    "an IAM role ARN: arn:aws:iam::<12 digits>:role/<name>",
    "it is not an IAM role ARN (arn:aws:iam::<12-digit account>:role/<name>)"
  )

  val roleSessionName: OptionRule[String] = {
    val accepted = "2 to 64 of letters, digits and +=,.@-_"
    matching("""[\w+=,.@-]{2,64}""", accepted, s"a role session name has $accepted")
  }

  val endpoint: OptionRule[String] = new OptionRule(
    "endpoint",
    Nil,
    raw => {
      val trimmed = raw.trim
      val withScheme = if (trimmed.contains("://")) trimmed else s"https://$trimmed"
      try {
        val uri = new java.net.URI(withScheme)
        if (uri.getHost == null) Left("it has no host")
        else if (uri.getPort > 65535) Left("the port must be a number from 0 to 65535")
        else if (!Set("http", "https").contains(uri.getScheme.toLowerCase(Locale.ROOT)))
          Left("the scheme must be http or https")
        else Right(withScheme)
      } catch { case e: java.net.URISyntaxException => Left(s"it is not a URL (${e.getReason})") }
    }
  )
}
