// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import java.util.Locale

import io.github.sparkkinesis.aws.AwsCredentialsConfig
import io.github.sparkkinesis.client.KinesisClientFactory
import io.github.sparkkinesis.config.{AwsOptions, KinesisOptions, OptionRule, OptionSpec, ParsedOptions}
import io.github.sparkkinesis.config.OptionParsers.{endpoint, int, string}
import io.github.sparkkinesis.errors.KinesisErrors

/**
 * Where the CloudWatch metrics listener publishes, and as whom: its settings, read once from the Spark
 * configuration (`spark.kinesis.cloudwatch.<key>`) or from the Python call's arguments (the same keys).
 * Immutable; its `toString` shows no secret.
 *
 * @param namespace     the CloudWatch namespace of every metric
 * @param region        the region of CloudWatch's endpoint and of the signature
 * @param endpoint      an explicit endpoint URL, or None for the region's public one
 * @param maxQueuedData how many data wait to be sent at most; beyond it the oldest are dropped
 */
private[sparkkinesis] final case class CloudWatchSettings(
    namespace: String,
    region: String,
    endpoint: Option[String],
    credentials: AwsCredentialsConfig,
    maxQueuedData: Int) {

  /** The URL PutMetricData goes to. */
  def url: String = endpoint.getOrElse(s"https://monitoring.$region.amazonaws.com")

  /** Where calls go, for log lines: the endpoint and the region. */
  def describeTarget: String = endpoint.fold(s"CloudWatch of region $region")(e => s"$e (region $region)")
}

/** The listener's settings, declared once. Stateless. */
private[sparkkinesis] object CloudWatchSettings {
  import OptionSpec.plain

  /** What every setting's key starts with in the Spark configuration. */
  val Prefix = "spark.kinesis.cloudwatch."

  /** Where the settings are described. */
  private val Documentation = "docs/guides/operations.md#to-cloudwatch"

  val Namespace: OptionSpec[String] =
    plain(
      "namespace",
      "SparkKinesis",
      "The CloudWatch namespace of the metrics (not starting with AWS/, which AWS keeps for its services).",
      "SparkKinesis")(
      new OptionRule[String](
        "text",
        Nil,
        raw =>
          string(raw).flatMap { ns =>
            if (ns.length > 255) Left("a namespace has at most 255 characters")
            else if (ns.startsWith("AWS/")) Left("namespaces starting with AWS/ are AWS' own")
            else if (ns.exists(c => c < 32 || c > 126)) Left("a namespace is printable ASCII")
            else Right(ns)
          }
      ))

  val Region: OptionSpec[String] =
    plain(
      "region",
      null,
      "AWS region of CloudWatch; default: from the endpoint, else the SDK's region chain.",
      "us-east-1")(string)

  val Endpoint: OptionSpec[String] =
    plain(
      "endpoint",
      null,
      "CloudWatch endpoint URL (a VPC endpoint, or a test server); default: the region's public endpoint.",
      "https://monitoring.us-east-1.amazonaws.com"
    )(endpoint)

  val MaxQueuedData: OptionSpec[Int] =
    plain(
      "maxQueuedData",
      "10000",
      "How many metric data wait at most while CloudWatch is slow or out (about 12 per source and progress); " +
        "beyond it the oldest are dropped, counted and logged.",
      "10000"
    )(int(1, 10000000))

  /** Every setting, in the order the documentation lists them; the credentials are the source's. */
  val all: Seq[OptionSpec[_]] = Seq(Namespace, Region, Endpoint) ++ KinesisOptions.credentials :+ MaxQueuedData

  /** The settings of the Spark configuration `conf` (every key; those without [[Prefix]] are left alone). */
  def fromConf(
      conf: Iterable[(String, String)],
      resolveDefaultRegion: () => Option[String] = () => KinesisClientFactory.defaultRegion()): CloudWatchSettings =
    parse(
      conf.collect {
        case (k, v) if k.toLowerCase(Locale.ROOT).startsWith(Prefix) => k.substring(Prefix.length) -> v
      }.toMap,
      resolveDefaultRegion)

  /**
   * Reads the settings given by their keys without [[Prefix]]. Refuses a key it does not take, naming those it
   * does, and a value it cannot read, naming the setting.
   */
  def parse(
      raw: Map[String, String],
      resolveDefaultRegion: () => Option[String] = () => KinesisClientFactory.defaultRegion()): CloudWatchSettings = {
    val keys = all.map(_.lowerKey).toSet
    raw.keys.toSeq.sorted.find(k => !keys.contains(k.toLowerCase(Locale.ROOT))).foreach { k =>
      throw KinesisErrors.settingUnknown(Prefix + k, Prefix, all.map(Prefix + _.key), Documentation)
    }
    val options = new ParsedOptions(raw)
    all.foreach(options.get(_))
    val endpoint = options.get(Endpoint)
    val region = options
      .get(Region)
      .orElse(endpoint.flatMap(AwsOptions.regionOfServiceEndpoint(_, "monitoring")))
      .orElse(resolveDefaultRegion())
      .getOrElse(throw KinesisErrors.missingOption(Prefix + Region.key, Region.example))
    CloudWatchSettings(
      options.required(Namespace),
      region,
      endpoint,
      AwsOptions.credentialsOf(options, region),
      options.required(MaxQueuedData))
  }

  /** The settings table of docs/guides/operations.md ("To CloudWatch"). */
  def markdownTable: String = {
    val rows = all.map { s =>
      val default = s.default.map(d => s"`$d`").getOrElse("")
      s"| `$Prefix${s.key}` | $default | ${s.doc.replace("|", "\\|")} |"
    }
    ("| setting | default | meaning |" +: "| --- | --- | --- |" +: rows).mkString("\n")
  }
}
