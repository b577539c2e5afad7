// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.{ApiFailures, KinesisApiException}
import io.github.sparkkinesis.errors.{KinesisErrors, KinesisException, RemoteFailure}
import io.github.sparkkinesis.offsets.ShardKey

/**
 * A failed Kinesis call of a shard's reader, as data, so that its user decides what follows (a prefetch task
 * reports it to the driver, a real-time or range reader tries again or fails): `error` is the error a user
 * would see for it (made on the executor by `ApiFailures`, with its cause copied into a
 * [[io.github.sparkkinesis.errors.RemoteFailure]] so that it always serializes), `kind` what it calls for.
 */
private[sparkkinesis] final case class FetchFailure(kind: FetchFailure.Kind, error: KinesisException)

private[sparkkinesis] object FetchFailure {
  sealed trait Kind extends Serializable

  /**
   * Kinesis could not be reached, or failed the call (a 5xx, a timeout), or the source of the credentials
   * could (STS): an outage, bounded by outageTimeout.
   */
  case object Transient extends Kind

  /**
   * Trying again cannot help: the stream is gone, access or credentials denied (or none found, or expired),
   * the request refused, records lost.
   */
  case object Fatal extends Kind

  /** The enhanced fan-out consumer the task subscribed with is gone: the driver registers it again. */
  case object ConsumerGone extends Kind

  /** Anything else (a subscription still in use, say): tried again, failing the query when it persists. */
  case object Other extends Kind

  /** The failure of a call for `shard`, made at `target`, as the driver gets it. */
  def of(e: KinesisApiException, shard: ShardKey, subscribes: Boolean, target: String): FetchFailure = {
    val action = e match {
      case denied: KinesisApiException.AccessDenied => denied.action
      case _ if subscribes => "SubscribeToShard"
      case _ => "GetRecords"
    }
    val cause = RemoteFailure.of(e)
    def userFacing = ApiFailures.toUserFacing(e, action, shard.stream, target, "read", cause = cause)
    e match {
      case _: KinesisApiException.ResourceNotFound if subscribes =>
        FetchFailure(ConsumerGone, KinesisErrors.kinesisCallFailed(action, shard.stream, target, cause))
      case _: KinesisApiException.TrimmedSequence =>
        FetchFailure(Fatal, KinesisErrors.dataLoss(shard.stream, shard.shardId, e.getMessage, "retention trimmed them"))
      case _ if ApiFailures.outage(e) => FetchFailure(Transient, userFacing)
      // An executor's session of the driver's role has expired: the next task brings a newer one.
      case c: KinesisApiException.CredentialsUnavailable if c.failure.renewable => FetchFailure(Other, userFacing)
      case _ if ApiFailures.retryable(e) => FetchFailure(Other, userFacing)
      case _: KinesisApiException.InUse | _: KinesisApiException.ExpiredIterator => FetchFailure(Other, userFacing)
      case _ => FetchFailure(Fatal, userFacing)
    }
  }
}
