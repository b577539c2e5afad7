// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

/**
 * How the connector authenticates to AWS. Serializable: executors build their own clients from it, but an
 * assumed role travels as its current session only (see [[AwsCredentialsConfig.AssumedRole]]).
 */
private[sparkkinesis] sealed trait AwsCredentialsConfig extends Serializable

private[sparkkinesis] object AwsCredentialsConfig {

  /** The AWS SDK's default chain: environment, system properties, profile, web identity, container, instance. */
  case object DefaultChain extends AwsCredentialsConfig

  /** Keys given as options. The access key id is partly masked in `toString`; the secrets are never shown. */
  final case class StaticKeys(accessKeyId: String, secretKey: Secret, sessionToken: Option[Secret])
      extends AwsCredentialsConfig {
    override def toString: String = s"StaticKeys(${maskedKeyId(accessKeyId)})"
  }

  /**
   * A role assumed, on the driver, with `base` credentials (static keys or the default chain), its sessions
   * renewed before they expire. It never leaves the driver as it is: serialized into a task, it is replaced
   * by the role's current session ([[RoleSession]]), so executors never receive the long-lived keys and
   * need no credentials of their own. A task that cannot get a session fails to serialize with the error a
   * user sees ([[CredentialsFailure.userFacing]]).
   */
  final case class AssumedRole(role: RoleSpec, base: AwsCredentialsConfig) extends AwsCredentialsConfig {
    private def writeReplace(): AnyRef =
      try new RoleSession(role, AssumedRoles.currentSession(this))
      catch { case f: CredentialsFailure => throw f.userFacing() }
  }

  /**
   * On an executor: a session of the role as a task brought it from the driver. Every task brings the
   * driver's current session; the executor keeps the newest for each role, and its clients, one per role,
   * always sign with that. Equal for every session of one role.
   */
  final class RoleSession(val role: RoleSpec, val session: SessionCredentials) extends AwsCredentialsConfig {
    private def readResolve(): AnyRef = {
      AssumedRoles.received(role, session)
      this
    }
    override def equals(other: Any): Boolean = other match {
      case o: RoleSession => o.role == role
      case _ => false
    }
    override def hashCode(): Int = role.hashCode()
    override def toString: String = s"RoleSession(${role.arn}, ${session})"
  }

  private[aws] def maskedKeyId(id: String): String =
    if (id.length <= 8) Secret.Redacted else id.take(4) + "..." + id.takeRight(4)
}
