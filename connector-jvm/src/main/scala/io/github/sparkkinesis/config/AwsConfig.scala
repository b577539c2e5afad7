package io.github.sparkkinesis.config

import io.github.sparkkinesis.errors.{KinesisErrors, KinesisOptionException}

/** How the connector authenticates to AWS. Serializable: executors build their own clients from it. */
sealed trait AwsCredentialsConfig extends Serializable

object AwsCredentialsConfig {

  /** The AWS SDK's default chain: environment, system properties, profile, web identity, container, instance. */
  case object DefaultChain extends AwsCredentialsConfig

  /** Keys given as options. The access key id is partly masked in `toString`; the secrets are never shown. */
  final case class StaticKeys(accessKeyId: String, secretKey: Secret, sessionToken: Option[Secret])
      extends AwsCredentialsConfig {
    override def toString: String = s"StaticKeys(${maskedKeyId(accessKeyId)})"
  }

  private[config] def maskedKeyId(id: String): String =
    if (id.length <= 8) Secret.Redacted else id.take(4) + "..." + id.takeRight(4)
}

/**
 * Where Kinesis is and as whom the connector calls it. Immutable and serializable.
 *
 * @param region   the AWS region, always resolved on the driver so that executors agree with it
 * @param endpoint an explicit endpoint URL, or None for the region's public endpoint
 */
final case class AwsConfig(region: String, endpoint: Option[String], credentials: AwsCredentialsConfig) {

  /** Where calls go, for messages: the endpoint and the region. */
  def describeTarget: String = endpoint.fold(s"the Kinesis endpoint of region $region")(e => s"$e (region $region)")
}

object AwsConfig {

  /** Reads region, endpoint and credentials from the options; the region may come from the environment. */
  def fromOptions(options: ParsedOptions, resolveDefaultRegion: () => Option[String]): AwsConfig = {
    val endpoint = options.get(KinesisOptions.Endpoint)
    val region = options
      .get(KinesisOptions.Region)
      .orElse(endpoint.flatMap(regionOfEndpoint))
      .orElse(resolveDefaultRegion())
      .getOrElse(throw KinesisErrors.noRegion(endpoint))
    AwsConfig(region, endpoint, credentials(options))
  }

  private def credentials(options: ParsedOptions): AwsCredentialsConfig = {
    val accessKey = options.get(KinesisOptions.AwsAccessKey)
    val secretKey = options.get(KinesisOptions.AwsSecretKey)
    val sessionToken = options.get(KinesisOptions.AwsSessionToken)
    (accessKey, secretKey) match {
      case (Some(id), Some(secret)) => AwsCredentialsConfig.StaticKeys(id, secret, sessionToken)
      case (None, None) if sessionToken.isEmpty => AwsCredentialsConfig.DefaultChain
      case (None, None) => throw missingWith(KinesisOptions.AwsAccessKey, KinesisOptions.AwsSessionToken)
      case (Some(_), None) => throw missingWith(KinesisOptions.AwsSecretKey, KinesisOptions.AwsAccessKey)
      case (None, Some(_)) => throw missingWith(KinesisOptions.AwsAccessKey, KinesisOptions.AwsSecretKey)
    }
  }

  private def missingWith(missing: OptionSpec[_], present: OptionSpec[_]) =
    new KinesisOptionException(
      "KINESIS_OPTION_MISSING",
      s"Option '${missing.key}' is required when '${present.key}' is set: give awsAccessKey and awsSecretKey " +
        "together, or neither to use the default credential chain."
    )

  private val RegionInHost = """(?:^|\.)kinesis(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.""".r

  /** The region named by a Kinesis endpoint host, e.g. kinesis.eu-west-1.amazonaws.com or a VPC endpoint. */
  def regionOfEndpoint(endpoint: String): Option[String] =
    Option(new java.net.URI(endpoint).getHost).flatMap(h => RegionInHost.findFirstMatchIn(h).map(_.group(1)))
}
