// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import io.github.sparkkinesis.aws.AwsCredentialsConfig

/**
 * Where the AWS Glue Schema Registry is and as whom the connector calls it. Immutable and serializable: it
 * travels to executors, which make their own clients of it. Its `toString` shows no secret (the credentials
 * mask their own).
 *
 * @param region      the registry's AWS region, which may be another than the streams'
 * @param endpoint    an explicit endpoint URL, or None for the region's (`https://glue.REGION.amazonaws.com`)
 * @param credentials as whom: static keys, the default chain or an assumed role, as for Kinesis
 */
private[sparkkinesis] final case class GlueRegistryConfig(
    region: String,
    endpoint: Option[String],
    credentials: AwsCredentialsConfig) {

  /** The URL calls are sent to. */
  def url: String = endpoint.map(_.trim.stripSuffix("/")).getOrElse(GlueRegistryConfig.regionalEndpoint(region))

  /** Where calls go, for messages: "https://glue.eu-west-1.amazonaws.com (region eu-west-1)". */
  def describeTarget: String = s"$url (region $region)"
}

private[sparkkinesis] object GlueRegistryConfig {

  /**
   * Glue's public endpoint in `region`: `amazonaws.com.cn` in China's regions, `amazonaws.com` in the others
   * (GovCloud's included); the isolated partitions' are given as `endpoint`.
   */
  def regionalEndpoint(region: String): String =
    s"https://glue.$region.${if (region.startsWith("cn-")) "amazonaws.com.cn" else "amazonaws.com"}"
}
