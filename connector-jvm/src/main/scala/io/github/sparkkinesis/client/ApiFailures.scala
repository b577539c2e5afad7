// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import io.github.sparkkinesis.errors.{ErrorCondition, KinesisErrors, KinesisException}

/**
 * The one translation of failed Kinesis calls into the errors a user sees: each names the stream, the
 * endpoint and what to do; a credentials failure names where the credentials come from instead (STS, the
 * default chain, ...: `aws.CredentialsFailure`). What the connector retries is decided by the
 * [[KinesisApiException]]'s type before it gets here.
 */
private[sparkkinesis] object ApiFailures {

  /**
   * The user-facing error for a failed call.
   *
   * @param action  the Kinesis action, e.g. "GetRecords"; an access-denied failure names its own
   * @param purpose what the call was for, as in "could not reach Kinesis to <purpose> stream 's'"
   * @param writing the row a write failed at, for a failure that fails it at once
   * @param cause   the error's cause, if not `e` itself (a copy of `e` that always serializes)
   */
  def toUserFacing(
      e: KinesisApiException,
      action: String,
      stream: String,
      target: String,
      purpose: String,
      writing: Option[String] = None,
      cause: Throwable = null): KinesisException = {
    val c = Option(cause).getOrElse(e)
    e match {
      case _: KinesisApiException.ResourceNotFound => KinesisErrors.streamNotFound(stream, target, c, writing)
      case denied: KinesisApiException.AccessDenied =>
        KinesisErrors.accessDenied(denied.action, stream, target, c, ClientUse.needed, writing)
      case _: KinesisApiException.Unreachable => KinesisErrors.endpointUnreachable(stream, target, purpose, c)
      case credentials: KinesisApiException.CredentialsUnavailable => credentials.failure.userFacing(writing, c)
      case _: KinesisApiException.Rejected => KinesisErrors.requestRejected(action, stream, target, c, writing)
      case _ => KinesisErrors.kinesisCallFailed(action, stream, target, c)
    }
  }

  /**
   * Whether sending the same request again may succeed: throttling, a 5xx, a timeout, no connection, or the
   * source of the credentials out of reach for now.
   */
  def retryable(e: KinesisApiException): Boolean = e match {
    case _: KinesisApiException.Throttled | _: KinesisApiException.Failed | _: KinesisApiException.Unreachable =>
      true
    case c: KinesisApiException.CredentialsUnavailable => c.failure.transient
    case _ => false
  }

  /**
   * Whether a failure is part of an outage: Kinesis could not be reached, or failed the call with a 5xx or a
   * timeout, or the credentials' source could (STS assuming the role, say). Throttling is not one (Kinesis
   * answered); refusals are not either (retrying cannot help).
   */
  def outage(e: KinesisApiException): Boolean = e match {
    case _: KinesisApiException.Failed | _: KinesisApiException.Unreachable => true
    case c: KinesisApiException.CredentialsUnavailable => c.failure.transient
    case _ => false
  }

  /** Whether a user-facing error of a call may pass when the call is made again. */
  def transient(e: Throwable): Boolean = e match {
    case ErrorCondition(
          ErrorCondition.EndpointUnreachable | ErrorCondition.CallFailed | ErrorCondition.CredentialsUnreachable) =>
      true
    case _ => false
  }

  /** Runs calls, throwing their failures as user-facing errors. */
  def userFacing[T](action: String, stream: String, api: KinesisApi, purpose: String = "read")(body: => T): T =
    try body
    catch { case e: KinesisApiException => throw toUserFacing(e, action, stream, api.target, purpose) }
}
