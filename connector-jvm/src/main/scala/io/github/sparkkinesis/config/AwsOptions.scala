// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, RoleSpec}
import io.github.sparkkinesis.aws.AwsCredentialsConfig.AssumedRole
import io.github.sparkkinesis.errors.KinesisErrors

/** Reads where Kinesis is and as whom to call it ([[AwsConfig]]) from the options. Stateless. */
private[sparkkinesis] object AwsOptions {

  /**
   * Reads region, endpoint, credentials and the streams named by ARN from the options. The region is
   * `region`'s, else that of the streams' ARNs, else the endpoint's, else the environment's; given as
   * `region`, or by the endpoint's host, it must be the ARNs'.
   */
  def parse(options: ParsedOptions, resolveDefaultRegion: () => Option[String]): AwsConfig = {
    val endpoint = options.get(KinesisOptions.Endpoint)
    val arns = StreamOptions.arns(options).getOrElse(Nil)
    val arnRegion = arns.headOption.map(_.region)
    for (ofArns <- arnRegion) {
      options.get(KinesisOptions.Region).filter(_ != ofArns).foreach { given =>
        throw KinesisErrors.invalidOption(
          KinesisOptions.Region.key,
          s"'$given'",
          s"the streams of streamARN are in region $ofArns; leave region out, as their ARNs say it",
          ofArns)
      }
      endpoint.filter(e => regionOfEndpoint(e).exists(_ != ofArns)).foreach { e =>
        throw KinesisErrors.invalidOption(
          KinesisOptions.Endpoint.key,
          s"'$e'",
          s"it is an endpoint of region ${regionOfEndpoint(e).get}, and the streams of streamARN are in region $ofArns",
          s"https://kinesis.$ofArns.amazonaws.com"
        )
      }
    }
    val region = options
      .get(KinesisOptions.Region)
      .orElse(arnRegion)
      .orElse(endpoint.flatMap(regionOfEndpoint))
      .orElse(resolveDefaultRegion())
      .getOrElse(throw KinesisErrors.noRegion(endpoint))
    AwsConfig(region, endpoint, credentialsOf(options, region), arns.map(a => a.name -> a.arn).toMap)
  }

  /**
   * As whom to call AWS in `region`: the role roleArn names (assumed with the keys given, or the default
   * chain), else the keys given, else the default chain.
   */
  def credentialsOf(options: ParsedOptions, region: String): AwsCredentialsConfig = {
    val keys = credentials(options)
    assumedRole(options, region, keys).getOrElse(keys)
  }

  /** With roleArn: the role, assumed with `base` (the keys given, or the default chain). */
  private def assumedRole(options: ParsedOptions, region: String, base: AwsCredentialsConfig): Option[AssumedRole] = {
    val arn = options.get(KinesisOptions.RoleArn)
    val externalId = options.get(KinesisOptions.RoleExternalId)
    val stsEndpoint = options.get(KinesisOptions.StsEndpoint)
    OptionRelations.Role.foreach(_.check(options))
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
    OptionRelations.Keys.foreach(_.check(options))
    // The rules leave the keys both given or neither, and a session token only with them.
    (options.get(KinesisOptions.AwsAccessKey), options.get(KinesisOptions.AwsSecretKey)) match {
      case (Some(id), Some(secret)) =>
        AwsCredentialsConfig.StaticKeys(id, secret, options.get(KinesisOptions.AwsSessionToken))
      case _ => AwsCredentialsConfig.DefaultChain
    }
  }

  private def regionOfStsEndpoint(endpoint: String): Option[String] = regionOfServiceEndpoint(endpoint, "sts")

  /** The region named by a Kinesis endpoint host, e.g. kinesis.eu-west-1.amazonaws.com or a VPC endpoint. */
  def regionOfEndpoint(endpoint: String): Option[String] = regionOfServiceEndpoint(endpoint, "kinesis")

  /**
   * The region an endpoint of AWS service `service` names in its host (`<service>[-fips].<region>.`, as
   * public and VPC endpoints do), if it names one.
   */
  def regionOfServiceEndpoint(endpoint: String, service: String): Option[String] = {
    val inHost = ("""(?:^|\.)""" + service + """(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.""").r
    Option(new java.net.URI(endpoint).getHost).flatMap(h => inHost.findFirstMatchIn(h).map(_.group(1)))
  }
}
