// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

/**
 * An IAM role to assume, and how: the options roleArn, roleExternalId, roleSessionName and stsEndpoint.
 * `region` is the region of the STS endpoint (the streams' region unless stsEndpoint says otherwise).
 */
private[sparkkinesis] final case class RoleSpec(
    arn: String,
    externalId: Option[String],
    sessionName: String,
    stsEndpoint: Option[String],
    region: String,
    durationSeconds: Int) {
  override def toString: String =
    s"role $arn (session $sessionName${externalId.fold("")(_ => ", with an external id")})"
}
