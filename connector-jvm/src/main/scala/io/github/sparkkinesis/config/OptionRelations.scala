// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.errors.{KinesisErrors, KinesisIllegalArgumentException}

/**
 * A rule between options, declared once beside the options ([[OptionRelations]]): the typed configurations
 * check it at `.load()`, and the Python builders read it from `pyspark_kinesis/_options.json` (generated
 * from [[describe]]), so both refuse the same options together with the same reason. Immutable.
 */
private[sparkkinesis] sealed trait OptionRelation {

  /** Whether the options given break the rule (values it reads are parsed: a bad one is refused as such). */
  def broken(options: ParsedOptions): Boolean

  /** The error `.load()` fails with when the rule is broken. */
  def error: KinesisIllegalArgumentException

  /** Fails, as `.load()` does, when the options given break the rule. */
  final def check(options: ParsedOptions): Unit =
    if (broken(options)) throw error

  /** The rule as plain Java values, for JSON. */
  def describe: java.util.Map[String, Any]
}

/**
 * `key` and `other` exclude each other: both set fail with `KINESIS_OPTIONS_CONFLICT`, naming `key` then
 * `other`, with `reason` (a sentence). Their values are parsed first, so a bad value is refused as such.
 *
 * @param otherValue only when `other`'s value, given or its default, is this one
 * @param when       only when this option's value, given or its default, is the one given
 */
private[sparkkinesis] final case class ExcludedTogether(
    key: OptionSpec[_],
    other: OptionSpec[_],
    reason: String,
    otherValue: Option[String] = None,
    when: Option[(OptionSpec[_], String)] = None)
    extends OptionRelation {

  def broken(options: ParsedOptions): Boolean =
    OptionRelation.set(options, key) && otherValue.fold(OptionRelation.set(options, other))(
      OptionRelation.has(options, other, _)) &&
      when.forall { case (spec, value) => OptionRelation.has(options, spec, value) }

  def error: KinesisIllegalArgumentException = KinesisErrors.optionsConflict(key.key, other.key, reason)

  def describe: java.util.Map[String, Any] = {
    val out = OptionRelation.pair("excludes", reason, key, other, otherValue)
    out.put("when", when.map { case (spec, value) => OptionRelation.keyValue(spec, value) }.orNull)
    out
  }
}

/**
 * `key` needs `other`: `key` set without `other` (or, with `otherValue`, without `other`'s value, given or its
 * default, being that one) fails with `KINESIS_OPTIONS_INCOMPLETE`, naming `other` as missing and `key` as
 * present, with `reason` (a sentence).
 */
private[sparkkinesis] final case class Requires(
    key: OptionSpec[_],
    other: OptionSpec[_],
    reason: String,
    otherValue: Option[String] = None)
    extends OptionRelation {

  def broken(options: ParsedOptions): Boolean =
    OptionRelation.set(options, key) &&
      !otherValue.fold(OptionRelation.set(options, other))(OptionRelation.has(options, other, _))

  def error: KinesisIllegalArgumentException = KinesisErrors.optionsIncomplete(other.key, key.key, reason)

  def describe: java.util.Map[String, Any] = OptionRelation.pair("requires", reason, key, other, otherValue)
}

/**
 * One of `options` must be set: none fails with `KINESIS_OPTION_MISSING` naming the first (with its
 * example). The error's template has no room for `reason`; the Python builders say it.
 */
private[sparkkinesis] final case class OneRequired(options: Seq[OptionSpec[_]], reason: String) extends OptionRelation {

  def broken(parsed: ParsedOptions): Boolean = !options.exists(o => parsed.givenKeys.contains(o.key))

  def error: KinesisIllegalArgumentException = KinesisErrors.missingOption(options.head.key, options.head.example)

  def describe: java.util.Map[String, Any] = {
    val out = OptionRelation.described("oneRequired", reason)
    out.put("keys", java.util.Arrays.asList(options.map(_.key): _*))
    out
  }
}

private[sparkkinesis] object OptionRelation {

  /** Whether the option is given (its value parsed: a bad one is refused as such). */
  private[config] def set(options: ParsedOptions, spec: OptionSpec[_]): Boolean =
    options.givenKeys.contains(spec.key) && options.get(spec).isDefined

  /** Whether the option's value, given or its default, is `value` as the option reads it. */
  private[config] def has(options: ParsedOptions, spec: OptionSpec[_], value: String): Boolean =
    options.get(spec).exists(parsed => spec.parse(value).toOption.contains(parsed))

  private[config] def described(kind: String, reason: String): java.util.LinkedHashMap[String, Any] = {
    val out = new java.util.LinkedHashMap[String, Any]()
    out.put("kind", kind)
    out.put("reason", reason)
    out
  }

  /** A rule between two options, `key` and `other` (with the value of `other` it is about, if any). */
  private[config] def pair(
      kind: String,
      reason: String,
      key: OptionSpec[_],
      other: OptionSpec[_],
      otherValue: Option[String]): java.util.LinkedHashMap[String, Any] = {
    val out = described(kind, reason)
    out.put("key", key.key)
    out.put("other", other.key)
    out.put("otherValue", otherValue.orNull)
    out
  }

  private[config] def keyValue(spec: OptionSpec[_], value: String): java.util.Map[String, Any] = {
    val out = new java.util.LinkedHashMap[String, Any]()
    out.put("key", spec.key)
    out.put("value", value)
    out
  }
}

/**
 * Every rule between options, declared once, per side: what streaming reads, batch reads and the sink
 * check of their options together. The checks that need the values themselves (consumer names counted
 * against the streams, positions naming streams not read, an end before the start) stay with the
 * configurations that make those values.
 */
private[sparkkinesis] object OptionRelations {
  import KinesisOptions._

  val StreamsOneWay: ExcludedTogether = ExcludedTogether(
    StreamName,
    StreamArnOption,
    "both name the streams to read or write; keep streamARN to name them by ARN (another account's stream " +
      "shared by a resource policy), or streamName."
  )

  val StreamsRequired: OneRequired = OneRequired(
    Seq(StreamName, StreamArnOption),
    "a read needs the streams it reads, named by streamName or by streamARN."
  )

  val MaxPartitionsOrShardsPerTask: ExcludedTogether = ExcludedTogether(
    MaxPartitions,
    ShardsPerTask,
    "maxPartitions sets how many tasks a read is split into, shardsPerTask derives them from the shards; " +
      "give one of the two."
  )

  private val efo = Some(ConsumerModeOption -> "efo")

  /** What a registered consumer (`registeredConsumerId`) is not given with, in the order they are checked. */
  val RegisteredConsumer: Seq[ExcludedTogether] =
    Seq(ConsumerName, ConsumerNamePrefix).map { own =>
      ExcludedTogether(
        RegisteredConsumerId,
        own,
        s"${own.key} names the consumer a query registers itself, and a query given " +
          s"${RegisteredConsumerId.key} registers none.",
        when = efo
      )
    } :+ ExcludedTogether(
      RegisteredConsumerId,
      RequireConsumerDeregistration,
      "a query never deregisters a consumer it was given, which others may read through too.",
      otherValue = Some("true"),
      when = efo
    )

  /** Keys given whole or not at all (none: the default credential chain), in the order they are checked. */
  val Keys: Seq[Requires] = {
    val reason = "give awsAccessKey and awsSecretKey together, or neither to use the default credential chain."
    Seq(
      Requires(AwsAccessKey, AwsSecretKey, reason),
      Requires(AwsSecretKey, AwsAccessKey, reason),
      Requires(AwsSessionToken, AwsAccessKey, reason))
  }

  /** What applies only to the role `roleArn` names. */
  val Role: Seq[Requires] =
    Seq(RoleExternalId, StsEndpoint).map(o => Requires(o, RoleArn, s"${o.key} applies to the role roleArn names."))

  val RegisteredConsumerNeedsEfo: Requires = Requires(
    RegisteredConsumerId,
    ConsumerModeOption,
    "a registered consumer is read through by enhanced fan-out: set consumerMode to efo.",
    otherValue = Some("efo")
  )

  /** The rules of the options every side shares (where Kinesis is, as whom): the consumer manager's too. */
  val shared: Seq[OptionRelation] = Keys ++ Role

  /** Streaming reads' rules. */
  val source: Seq[OptionRelation] =
    Seq(StreamsOneWay, StreamsRequired, MaxPartitionsOrShardsPerTask) ++ RegisteredConsumer ++
      Seq(RegisteredConsumerNeedsEfo) ++ shared

  /** Batch reads' rules (they take neither shardsPerTask nor enhanced fan-out's options). */
  val batch: Seq[OptionRelation] = Seq(StreamsOneWay, StreamsRequired) ++ shared

  /** The sink's rules: a row's `stream` column may name the stream instead, so none is required. */
  val sink: Seq[OptionRelation] = Seq(StreamsOneWay) ++ shared
}
