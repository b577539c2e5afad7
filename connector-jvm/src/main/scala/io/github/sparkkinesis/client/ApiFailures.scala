package io.github.sparkkinesis.client

import io.github.sparkkinesis.errors.KinesisErrors

/** Turns the failures a user can act on into errors that name the stream, the endpoint and what to do. */
object ApiFailures {

  def userFacing[T](action: String, stream: String, api: KinesisApi)(body: => T): T =
    try body
    catch {
      case e: KinesisApiException.ResourceNotFound => throw KinesisErrors.streamNotFound(stream, api.target, e)
      case e: KinesisApiException.AccessDenied => throw KinesisErrors.accessDenied(e.action, stream, api.target, e)
      case e: KinesisApiException.Unreachable => throw KinesisErrors.endpointUnreachable(stream, api.target, e)
      case e: KinesisApiException.Failed => throw KinesisErrors.kinesisCallFailed(action, stream, api.target, e)
      case e: KinesisApiException.CredentialsUnavailable => throw KinesisErrors.credentialsUnavailable(api.target, e)
    }
}
