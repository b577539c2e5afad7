// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

import io.github.sparkkinesis.errors.{KinesisErrors, KinesisException}

/**
 * Credentials could not be had, and where: the connector's credentials providers ([[Credentials.provider]])
 * throw it in place of the AWS SDK's failure, which is its cause, and the Kinesis client makes one when
 * Kinesis refuses the credentials themselves (expired, unknown). It names the source that failed (STS
 * assuming a role, the default chain and what this JVM sets it up with, the keys given as options, a
 * session the driver sent) rather than the Kinesis endpoint the call was for, and says what to check;
 * [[CredentialsDiagnosis]] words it. Thread-safe (immutable).
 *
 * @param kind      what went wrong: only [[CredentialsFailure.Unreachable]] may pass by itself
 * @param failure   what failed, naming the source, as a clause: "could not reach STS at ... to assume role ..."
 * @param said      what the source said (the SDK's message, or the part of it about that source)
 * @param check     what to check, as sentences
 * @param renewable whether credentials a later Spark task brings may succeed where these failed (an
 *                  executor's expired session of the driver's role): the caller tries again for a while
 */
private[sparkkinesis] final class CredentialsFailure(
    val kind: CredentialsFailure.Kind,
    val failure: String,
    val said: String,
    val check: String,
    val renewable: Boolean,
    cause: Throwable)
    extends RuntimeException(s"$failure: $said", cause) {

  /** An outage of the source (it could not be reached, or failed for now): tried again like one. */
  def transient: Boolean = kind == CredentialsFailure.Unreachable

  /**
   * The error a user sees: `KINESIS_CREDENTIALS_UNREACHABLE` if transient, else
   * `KINESIS_CREDENTIALS_UNAVAILABLE` (its `WRITE` variant naming the row a write failed at, if `writing`).
   * `cause` is this failure, or a copy of it that always serializes.
   */
  def userFacing(writing: Option[String] = None, cause: Throwable = this): KinesisException =
    if (transient) KinesisErrors.credentialsUnreachable(failure, said, check, cause)
    else KinesisErrors.credentialsUnavailable(failure, said, check, cause, writing)
}

private[sparkkinesis] object CredentialsFailure {

  sealed abstract class Kind(val name: String) extends Serializable {
    override def toString: String = name
  }

  /** The source could not be reached, or failed for now (no connection, a timeout, a 5xx, throttling). */
  case object Unreachable extends Kind("unreachable")

  /** The source, or Kinesis, said no: access denied, an unknown key, a bad signature, token or external id. */
  case object Refused extends Kind("refused")

  /** The credentials' session has expired. */
  case object Expired extends Kind("expired")

  /** There was nothing to get credentials from. */
  case object Missing extends Kind("missing")

  /** The credentials failure in `t` or its causes, if there is one. */
  def in(t: Throwable): Option[CredentialsFailure] =
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).take(20).collectFirst { case f: CredentialsFailure => f }
}
