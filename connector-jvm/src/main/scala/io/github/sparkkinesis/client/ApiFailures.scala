package io.github.sparkkinesis.client

import io.github.sparkkinesis.errors.{KinesisErrors, KinesisException}

/**
 * The one translation of failed Kinesis calls into the errors a user sees: each names the stream, the
 * endpoint and what to do. What the connector retries is decided by the [[KinesisApiException]]'s type
 * before it gets here.
 */
object ApiFailures {

  /**
   * The user-facing error for a failed call.
   *
   * @param action  the Kinesis action, e.g. "GetRecords"; an access-denied failure names its own
   * @param purpose what the call was for, as in "could not reach Kinesis to <purpose> stream 's'"
   * @param writing the row a write failed at, for a failure that fails it at once
   */
  def toUserFacing(
      e: KinesisApiException,
      action: String,
      stream: String,
      target: String,
      purpose: String,
      writing: Option[String] = None): KinesisException = e match {
    case _: KinesisApiException.ResourceNotFound => KinesisErrors.streamNotFound(stream, target, e, writing)
    case denied: KinesisApiException.AccessDenied =>
      KinesisErrors.accessDenied(denied.action, stream, target, e, writing)
    case _: KinesisApiException.Unreachable => KinesisErrors.endpointUnreachable(stream, target, purpose, e)
    case _: KinesisApiException.CredentialsUnavailable => KinesisErrors.credentialsUnavailable(target, e, writing)
    case _: KinesisApiException.Rejected => KinesisErrors.requestRejected(action, stream, target, e, writing)
    case _ => KinesisErrors.kinesisCallFailed(action, stream, target, e)
  }

  /** Whether sending the same request again may succeed: throttling, a 5xx, a timeout, no connection. */
  def retryable(e: KinesisApiException): Boolean = e match {
    case _: KinesisApiException.Throttled | _: KinesisApiException.Failed | _: KinesisApiException.Unreachable =>
      true
    case _ => false
  }

  /** Runs calls, throwing their failures as user-facing errors. */
  def userFacing[T](action: String, stream: String, api: KinesisApi, purpose: String = "read")(body: => T): T =
    try body
    catch { case e: KinesisApiException => throw toUserFacing(e, action, stream, api.target, purpose) }
}
