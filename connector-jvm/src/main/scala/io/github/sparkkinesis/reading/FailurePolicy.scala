// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import java.time.Instant

import io.github.sparkkinesis.config.Durations
import io.github.sparkkinesis.errors.{ErrorCondition, KinesisErrors, KinesisException}
import io.github.sparkkinesis.offsets.ShardKey

/**
 * What a read does with a failed call of a shard, the same in every mode:
 *
 *  - trying again cannot help (the stream is gone, access is denied, records were trimmed before they were
 *    read: [[FetchFailure.Fatal]]): the read fails at once, with that error;
 *  - the shard's enhanced fan-out consumer is gone: the driver registers it again for the next batch, and a
 *    real-time task polls the shard for the rest of its own;
 *  - anything else (Kinesis out of reach or failing calls, a subscription still in use, an expired
 *    session) is tried again, after a pause that doubles from 0.5 s to 5 s (`FetchLoop.retryLater`), for
 *    as long as the shard's calls have failed for less than `outageTimeout`; then the read fails, with
 *    `KINESIS_UNAVAILABLE` if Kinesis could not be reached (an outage), else with the last call's error
 *    (`KINESIS_CREDENTIALS_UNREACHABLE` when it was the credentials' source that could not be reached).
 *
 * Range readers (batch reads, a micro-batch's range read again) and real-time tasks decide in the task,
 * here. Prefetch tasks hand their failures to the driver (`prefetch.Prefetcher`), which decides alike for
 * fatal failures, lost consumers and outages (`health.KinesisHealth` timing an outage over all the query's
 * calls of a stream), and counts a shard's other failures in prefetch rounds instead of timing them: ten in
 * a row fail the query. Stateless.
 */
private[sparkkinesis] object FailurePolicy {

  sealed trait Decision

  /** Call the shard again after a pause. */
  case object TryAgain extends Decision

  /** Read the shard by polling, its consumer gone. */
  case object Poll extends Decision

  /** The read fails with `error`. */
  final case class Fail(error: KinesisException) extends Decision

  /**
   * What to do after `failure` of `shard`'s call, its calls failing for `failingForMs` up to `nowMs`.
   *
   * @param target the endpoint and region, for the error
   */
  def decide(
      failure: FetchFailure,
      shard: ShardKey,
      failingForMs: Long,
      outageTimeoutMs: Option[Long],
      target: String,
      nowMs: Long): Decision =
    failure.kind match {
      case FetchFailure.Fatal => Fail(failure.error)
      case FetchFailure.ConsumerGone => Poll
      case kind if outageTimeoutMs.exists(failingForMs >= _) =>
        val kinesisOutage =
          kind == FetchFailure.Transient && !ErrorCondition
            .unapply(failure.error)
            .contains(ErrorCondition.CredentialsUnreachable)
        if (!kinesisOutage) Fail(failure.error)
        else
          Fail(
            KinesisErrors.unavailable(
              shard.stream,
              target,
              "read",
              failingForMs / 1000,
              s"no call of its shard ${shard.shardId} has succeeded since ${Instant.ofEpochMilli(nowMs - failingForMs)}",
              outageTimeoutMs.map(Durations.format).getOrElse("inf"),
              failure.error
            ))
      case _ => TryAgain
    }
}
