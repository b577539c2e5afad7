// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

/** Temporary credentials of an assumed role's session; the secrets are never shown. */
private[sparkkinesis] final case class SessionCredentials(
    accessKeyId: String,
    secretKey: Secret,
    sessionToken: Secret,
    expiresAtMillis: Long) {
  override def toString: String =
    s"session ${AwsCredentialsConfig.maskedKeyId(accessKeyId)} until ${java.time.Instant.ofEpochMilli(expiresAtMillis)}"
}
