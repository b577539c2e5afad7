// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, RoleSpec}
import io.github.sparkkinesis.aws.AwsCredentialsConfig.AssumedRole
import io.github.sparkkinesis.errors.KinesisErrors

/** Reads where Kinesis is and as whom to call it ([[AwsConfig]]) from the options. Stateless. */
private[sparkkinesis] object AwsOptions {

  /** Reads region, endpoint and credentials from the options; the region may come from the environment. */
  def parse(options: ParsedOptions, resolveDefaultRegion: () => Option[String]): AwsConfig = {
    val endpoint = options.get(KinesisOptions.Endpoint)
    val region = options
      .get(KinesisOptions.Region)
      .orElse(endpoint.flatMap(regionOfEndpoint))
      .orElse(resolveDefaultRegion())
      .getOrElse(throw KinesisErrors.noRegion(endpoint))
    val keys = credentials(options)
    AwsConfig(region, endpoint, assumedRole(options, region, keys).getOrElse(keys))
  }

  /** With roleArn: the role, assumed with `base` (the keys given, or the default chain). */
  private def assumedRole(options: ParsedOptions, region: String, base: AwsCredentialsConfig): Option[AssumedRole] = {
    val arn = options.get(KinesisOptions.RoleArn)
    val externalId = options.get(KinesisOptions.RoleExternalId)
    val stsEndpoint = options.get(KinesisOptions.StsEndpoint)
    if (arn.isEmpty) {
      if (externalId.isDefined) throw missingWith(KinesisOptions.RoleArn, KinesisOptions.RoleExternalId)
      if (stsEndpoint.isDefined) throw missingWith(KinesisOptions.RoleArn, KinesisOptions.StsEndpoint)
    }
    arn.map { roleArn =>
      val role = RoleSpec(
        roleArn,
        externalId,
        options.required(KinesisOptions.RoleSessionName),
        stsEndpoint,
        stsEndpoint.flatMap(regionOfStsEndpoint).getOrElse(region),
        (options.required(KinesisOptions.RoleSessionDuration) / 1000).toInt
      )
      AssumedRole(role, base)
    }
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
    KinesisErrors.optionsIncomplete(
      missing.key,
      present.key,
      if (missing == KinesisOptions.RoleArn) s"${present.key} applies to the role roleArn names."
      else "give awsAccessKey and awsSecretKey together, or neither to use the default credential chain."
    )

  private val RegionInStsHost = """(?:^|\.)sts(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.""".r

  private def regionOfStsEndpoint(endpoint: String): Option[String] =
    Option(new java.net.URI(endpoint).getHost).flatMap(h => RegionInStsHost.findFirstMatchIn(h).map(_.group(1)))

  private val RegionInHost = """(?:^|\.)kinesis(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.""".r

  /** The region named by a Kinesis endpoint host, e.g. kinesis.eu-west-1.amazonaws.com or a VPC endpoint. */
  def regionOfEndpoint(endpoint: String): Option[String] =
    Option(new java.net.URI(endpoint).getHost).flatMap(h => RegionInHost.findFirstMatchIn(h).map(_.group(1)))
}
