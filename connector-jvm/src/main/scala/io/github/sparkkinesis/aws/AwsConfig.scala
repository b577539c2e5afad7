// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

/**
 * Where Kinesis is and as whom the connector calls it. Immutable and serializable.
 *
 * @param region     the AWS region, always resolved on the driver so that executors agree with it
 * @param endpoint   an explicit endpoint URL, or None for the region's public endpoint
 * @param streamArns the ARN of each stream named by ARN (`streamARN`), by name: every call names these
 *                   streams by their ARN, as calls to another account's stream through its resource policy
 *                   must
 */
private[sparkkinesis] final case class AwsConfig(
    region: String,
    endpoint: Option[String],
    credentials: AwsCredentialsConfig,
    streamArns: Map[String, String] = Map.empty) {

  /** Where calls go, for messages: the endpoint and the region. */
  def describeTarget: String = endpoint.fold(s"the Kinesis endpoint of region $region")(e => s"$e (region $region)")
}
