package io.github.sparkkinesis.config

import java.util.Locale

import io.github.sparkkinesis.config.OptionParsers._

/**
 * Every option the connector accepts, declared once: key, default, documentation and parser. The typed
 * configurations, the README's option table and the Python builders all follow from this list.
 * Names and defaults are those of the Databricks Kinesis source, so user code ports unchanged.
 */
object KinesisOptions {

  private def spec[T](key: String, default: String, doc: String, example: String)(
      parse: String => Either[String, T]
  ): OptionSpec[T] =
    OptionSpec(key, Option(default), doc, example, secret = false, parse)

  private def secretSpec(key: String, doc: String): OptionSpec[Secret] =
    OptionSpec(key, None, doc, "<secret>", secret = true, (raw: String) => string(raw).map(new Secret(_)))

  // ---- what to read ----

  val StreamName: OptionSpec[Seq[String]] =
    spec("streamName", null, "Comma-separated names of the streams to read.", "my-stream")(streamNames)

  val InitialPositionOption: OptionSpec[InitialPosition] =
    spec(
      "initialPosition",
      "latest",
      "Where a new query starts: latest, trim_horizon, earliest (alias of trim_horizon) or at_timestamp " +
        """as JSON, e.g. {"at_timestamp": "06/25/2020 10:23:45 PDT", "format": "MM/dd/yyyy HH:mm:ss ZZZ"}.""",
      "trim_horizon"
    )(InitialPosition.parse)

  // ---- where and as whom ----

  val Region: OptionSpec[String] =
    spec(
      "region",
      null,
      "AWS region of the streams; default: from the endpoint, else the SDK's region chain.",
      "us-east-1"
    )(string)

  val Endpoint: OptionSpec[String] =
    spec(
      "endpoint",
      null,
      "Kinesis endpoint URL; default: the region's public endpoint.",
      "https://kinesis.us-east-1.amazonaws.com"
    )(OptionParsers.endpoint)

  val AwsAccessKey: OptionSpec[String] =
    spec("awsAccessKey", null, "AWS access key id; default: the SDK's default credential chain.", "AKIA...")(string)

  val AwsSecretKey: OptionSpec[Secret] =
    secretSpec("awsSecretKey", "AWS secret access key of awsAccessKey.")

  val AwsSessionToken: OptionSpec[Secret] =
    secretSpec("awsSessionToken", "Session token, when awsAccessKey and awsSecretKey are temporary credentials.")

  // ---- how to read ----

  val MaxRecordsPerFetch: OptionSpec[Int] =
    spec("maxRecordsPerFetch", "10000", "Records asked for per GetRecords call (at most 10000).", "10000")(
      int(1, 10000)
    )

  val ShardFetchInterval: OptionSpec[Long] =
    spec("shardFetchInterval", "1s", "How often the shard list is refreshed to find reshards.", "1s")(
      durationMillis(min = 0, max = Long.MaxValue)
    )

  val all: Seq[OptionSpec[_]] = Seq(
    StreamName,
    InitialPositionOption,
    Region,
    Endpoint,
    AwsAccessKey,
    AwsSecretKey,
    AwsSessionToken,
    MaxRecordsPerFetch,
    ShardFetchInterval
  )

  private val byLowerKey: Map[String, OptionSpec[_]] = all.map(s => s.lowerKey -> s).toMap

  /** The README's option table, generated from the declarations above (a test keeps the README in step). */
  def markdownTable: String = {
    val rows = all.map { s =>
      val default = s.default.map(d => s"`$d`").getOrElse(if (s == StreamName) "required" else "")
      s"| `${s.key}` | $default | ${s.doc.replace("|", "\\|")} |"
    }
    ("| option | default | meaning |" +: "| --- | --- | --- |" +: rows).mkString("\n")
  }

  def find(key: String): Option[OptionSpec[_]] = byLowerKey.get(key.toLowerCase(Locale.ROOT))
}
