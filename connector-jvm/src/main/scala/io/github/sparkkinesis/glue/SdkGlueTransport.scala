// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.time.Duration

import io.github.sparkkinesis.aws.{AwsCredentialsConfig, SignedJsonClient}

/**
 * The [[GlueTransport]] that calls Glue in its JSON protocol (awsJson1.1) without Glue's own SDK module
 * ([[SignedJsonClient]]): signed for service `glue` in the registry's region; connections within 5 s, no
 * answer waited for beyond 30 s of silence. Nothing is sent, and no credentials are resolved, until the
 * first call. Thread-safe; `close()` is idempotent.
 *
 * @param userAgent what the User-Agent header starts with, naming the connector and the use, so that
 *                  CloudTrail tells the connector's calls apart
 */
private[sparkkinesis] final class SdkGlueTransport(config: GlueRegistryConfig, userAgent: String)
    extends GlueTransport {

  private val client = new SignedJsonClient(
    config.url,
    config.region,
    config.credentials,
    service = "glue",
    contentType = "application/x-amz-json-1.1",
    userAgent,
    SignedJsonClient.Limits(connections = 16, Duration.ofSeconds(5), Duration.ofSeconds(30))
  )

  override def target: String = config.describeTarget

  override def credentials: AwsCredentialsConfig = config.credentials

  override def send(operation: String, body: String): GlueResponse = {
    val answer = client.post(s"AWSGlue.$operation", body)
    GlueResponse(answer.status, answer.body, answer.errorType)
  }

  override def close(): Unit = client.close()

  override def toString: String = s"SdkGlueTransport(${config.describeTarget})"
}
