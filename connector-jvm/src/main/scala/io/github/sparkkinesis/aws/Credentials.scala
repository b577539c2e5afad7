// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

import software.amazon.awssdk.auth.credentials._

/**
 * The one place that turns the connector's credentials ([[AwsCredentialsConfig]]) into an AWS SDK
 * provider, for every client: the source's, the enhanced fan-out client, the sink's, the consumer
 * manager's, and STS's own when a role is assumed. Stateless.
 */
private[sparkkinesis] object Credentials {

  def provider(credentials: AwsCredentialsConfig): AwsCredentialsProvider = credentials match {
    case AwsCredentialsConfig.DefaultChain =>
      DefaultCredentialsProvider.builder().build()
    case AwsCredentialsConfig.StaticKeys(id, secret, None) =>
      StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret.reveal))
    case AwsCredentialsConfig.StaticKeys(id, secret, Some(token)) =>
      StaticCredentialsProvider.create(AwsSessionCredentials.create(id, secret.reveal, token.reveal))
    case assumed: AwsCredentialsConfig.AssumedRole => AssumedRoles.provider(assumed)
    case session: AwsCredentialsConfig.RoleSession => AssumedRoles.receivedProvider(session.role)
  }
}
