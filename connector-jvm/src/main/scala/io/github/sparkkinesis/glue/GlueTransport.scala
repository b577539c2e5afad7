// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import io.github.sparkkinesis.aws.AwsCredentialsConfig

/**
 * One exchange with Glue, once, in its awsJson1.1 protocol: `POST /` with the operation in `X-Amz-Target`
 * and a JSON body, signed. No retries and no reading of the answer: [[GlueCalls]] does both. The seam where
 * unit tests put a fake HTTP layer. Thread-safe.
 */
private[sparkkinesis] trait GlueTransport extends AutoCloseable {

  /** Where calls go, for messages: the endpoint and the region. */
  def target: String

  /** The credentials calls are signed with, for messages when Glue refuses them. */
  def credentials: AwsCredentialsConfig

  /**
   * Sends `body` as `operation` (GetSchemaVersion, ...) and returns Glue's answer, whatever its status.
   *
   * @throws java.io.IOException          when no answer came (no connection, a timeout)
   * @throws aws.CredentialsFailure       when there were no credentials to sign with
   */
  def send(operation: String, body: String): GlueResponse
}

/**
 * An answer: its HTTP status, its body as text, and the error type Glue names in its `X-Amzn-ErrorType`
 * header, if it does.
 */
private[sparkkinesis] final case class GlueResponse(status: Int, body: String, errorType: Option[String] = None)
