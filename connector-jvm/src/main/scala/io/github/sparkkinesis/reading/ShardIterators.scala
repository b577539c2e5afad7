// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.{IteratorStart, KinesisApi, KinesisApiException}
import io.github.sparkkinesis.offsets.ShardKey
import org.slf4j.LoggerFactory

/**
 * Opens shard iterators and subscriptions for the prefetch tasks and the batch readers alike, with the
 * option `failOnDataLoss`: a sequence number that retention has trimmed fails with
 * [[KinesisApiException.TrimmedSequence]] naming the records lost, or, when the user accepts the loss,
 * reading goes on from the oldest record still there. Stateless and thread-safe.
 */
private[sparkkinesis] object ShardIterators {
  private val log = LoggerFactory.getLogger(getClass)

  def open(api: KinesisApi, key: ShardKey, start: IteratorStart, failOnDataLoss: Boolean): String =
    openAt(key, start, failOnDataLoss)(at => api.getShardIterator(key.stream, key.shardId, at))

  /** Calls `open` at `start`; if Kinesis no longer has the records there, fails or opens at the oldest. */
  def openAt[T](key: ShardKey, start: IteratorStart, failOnDataLoss: Boolean)(open: IteratorStart => T): T =
    try open(start)
    catch {
      case e: KinesisApiException.TrimmedSequence if failOnDataLoss =>
        throw new KinesisApiException.TrimmedSequence(lostRecords(start), e)
      case e: KinesisApiException.TrimmedSequence =>
        log.warn(
          s"The ${lostRecords(start)} of $key are no longer in Kinesis (${e.getMessage}); as failOnDataLoss is " +
            "false, reading goes on from the oldest record still there and skips those in between."
        )
        open(IteratorStart.TrimHorizon)
    }

  /** Which records a start position that Kinesis refused stood for, for messages. */
  def lostRecords(start: IteratorStart): String = start match {
    case IteratorStart.AfterSequenceNumber(seq) => s"records after sequence number $seq"
    case IteratorStart.AtSequenceNumber(seq) => s"records from sequence number $seq on"
    case other => s"records from $other on"
  }
}
