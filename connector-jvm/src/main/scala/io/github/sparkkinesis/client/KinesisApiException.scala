// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import io.github.sparkkinesis.aws.CredentialsFailure

/** A Kinesis failure the connector reacts to. */
private[sparkkinesis] sealed abstract class KinesisApiException(message: String, cause: Throwable)
    extends RuntimeException(message, cause)

private[sparkkinesis] object KinesisApiException {

  final class ResourceNotFound(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /**
   * A shard iterator was asked for at or after a sequence number Kinesis no longer has: retention trimmed
   * the records there.
   */
  final class TrimmedSequence(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /** A shard iterator older than five minutes; get a new one from the last sequence number read. */
  final class ExpiredIterator(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /**
   * ResourceInUse: the resource is busy, e.g. another subscription of the consumer to the shard is still
   * open, or a consumer of that name exists already.
   */
  final class InUse(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /** ProvisionedThroughputExceeded or LimitExceeded: slow down. */
  final class Throttled(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  final class AccessDenied(val action: String, message: String, cause: Throwable)
      extends KinesisApiException(message, cause)

  /**
   * No credentials to sign the call with, or Kinesis refused them (expired, unknown): `failure` names their
   * source and whether the failure may pass by itself (an outage of STS, say).
   */
  final class CredentialsUnavailable(val failure: CredentialsFailure)
      extends KinesisApiException(failure.getMessage, failure)

  /** The endpoint could not be reached at all. */
  final class Unreachable(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /**
   * Kinesis refused the request itself (HTTP 4xx): a value it does not accept, a KMS key that is disabled,
   * missing or denied. Sending it again cannot succeed.
   */
  final class Rejected(message: String, cause: Throwable) extends KinesisApiException(message, cause)

  /** Any other failure of a call (a 5xx, a timeout, a dropped connection), after the SDK's own retries. */
  final class Failed(message: String, cause: Throwable) extends KinesisApiException(message, cause)
}
