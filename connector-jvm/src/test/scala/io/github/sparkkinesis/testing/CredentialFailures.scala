// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import io.github.sparkkinesis.aws.CredentialsFailure
import io.github.sparkkinesis.client.KinesisApiException

/** Credentials failures as the connector's providers make them, for fakes to fail calls with. */
object CredentialFailures {

  val Sts = "http://127.0.0.1:9"
  val Role = "arn:aws:iam::123456789012:role/reader"

  /** STS could not be reached to assume the role: an outage of STS. */
  def stsUnreachable: CredentialsFailure =
    new CredentialsFailure(
      CredentialsFailure.Unreachable,
      s"could not reach STS at $Sts (region us-east-1) to assume role $Role",
      "Unable to execute HTTP request: Connect to 127.0.0.1:9 failed: Connection refused",
      s"Check the option stsEndpoint ($Sts) and the network path to it from the driver.",
      renewable = false,
      new java.net.ConnectException("Connection refused")
    )

  /** STS refused the role. */
  def stsRefused: CredentialsFailure =
    new CredentialsFailure(
      CredentialsFailure.Refused,
      s"STS at $Sts (region us-east-1) refused AssumeRole of role $Role (session s)",
      "User: arn:aws:iam::123456789012:user/spark is not authorized to perform: sts:AssumeRole",
      "Check the role's trust policy.",
      renewable = false,
      null
    )

  def unavailable(failure: => CredentialsFailure): () => KinesisApiException =
    () => new KinesisApiException.CredentialsUnavailable(failure)
}
