// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

import scala.util.control.NonFatal

import software.amazon.awssdk.auth.credentials._
import software.amazon.awssdk.utils.SdkAutoCloseable

/**
 * The one place that turns the connector's credentials ([[AwsCredentialsConfig]]) into an AWS SDK
 * provider, for every client: the source's, the enhanced fan-out client, the sink's, the consumer
 * manager's, and STS's own when a role is assumed. Each provider says where its credentials failed: it
 * throws a [[CredentialsFailure]] ([[CredentialsDiagnosis.resolving]]) in place of the SDK's failure, and a
 * client finds what it signs with by [[configOf]] when Kinesis refuses the credentials. Stateless.
 */
private[sparkkinesis] object Credentials {

  def provider(credentials: AwsCredentialsConfig): AwsCredentialsProvider =
    new Diagnosed(credentials, sdkProvider(credentials))

  /** The connector's credentials a provider of [[provider]] gives, e.g. as a client's configuration holds it. */
  def configOf(provider: Any): Option[AwsCredentialsConfig] = provider match {
    case d: Diagnosed => Some(d.config)
    case _ => None
  }

  private def sdkProvider(credentials: AwsCredentialsConfig): AwsCredentialsProvider = credentials match {
    case AwsCredentialsConfig.DefaultChain =>
      DefaultCredentialsProvider.builder().build()
    case AwsCredentialsConfig.StaticKeys(id, secret, None) =>
      StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret.reveal))
    case AwsCredentialsConfig.StaticKeys(id, secret, Some(token)) =>
      StaticCredentialsProvider.create(AwsSessionCredentials.create(id, secret.reveal, token.reveal))
    case assumed: AwsCredentialsConfig.AssumedRole => AssumedRoles.provider(assumed)
    case session: AwsCredentialsConfig.RoleSession => AssumedRoles.receivedProvider(session.role)
  }

  /**
   * A provider whose failures name their source. A client closes its provider, and so this one the SDK's
   * it wraps, when that is the client's own (the default chain's); a role's is shared, and is not closed.
   */
  private final class Diagnosed(val config: AwsCredentialsConfig, underlying: AwsCredentialsProvider)
      extends AwsCredentialsProvider
      with SdkAutoCloseable {

    override def resolveCredentials(): AwsCredentials =
      try underlying.resolveCredentials()
      catch { case NonFatal(e) => throw CredentialsDiagnosis.resolving(config, e) }

    override def close(): Unit = underlying match {
      case closeable: AutoCloseable => closeable.close()
      case _ => ()
    }

    override def toString: String = s"Credentials($config)"
  }
}
