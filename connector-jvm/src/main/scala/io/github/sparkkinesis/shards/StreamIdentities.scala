// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.shards

import java.time.Instant

import scala.collection.mutable
import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{KinesisApi, KinesisApiException, ShardInfo}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardKey, ShardPosition, StreamIdentity}
import org.slf4j.LoggerFactory

/**
 * Tells whether the streams a checkpoint was reading are still the streams of those names, or were deleted
 * and created again: a recreated stream starts its shards and sequence numbers over, so no position of the
 * checkpoint means anything in it. Two signs are checked:
 *
 *  - the stream's ARN and creation time (DescribeStreamSummary) against those kept in the offsets, once
 *    when the query starts and again whenever a stream seems gone;
 *  - with no call at all, each listing of the shards: a shard that now begins after the position the
 *    checkpoint had reached in it is not the shard that was read.
 *
 * When DescribeStreamSummary is denied, the first sign is skipped (with a warning) and the second remains.
 * Driver side; not thread-safe: the stream calls it from the query's thread.
 */
private[sparkkinesis] final class StreamIdentities(api: KinesisApi, streams: Seq[String]) {
  private val log = LoggerFactory.getLogger(getClass)

  /** What Kinesis says now, per stream, once learned; None when DescribeStreamSummary is not allowed. */
  private val known = mutable.Map.empty[String, Option[StreamIdentity]]

  /** The identities of the streams now, for a query's first offset. */
  def current(): Map[String, StreamIdentity] =
    streams.flatMap(s => known.getOrElseUpdate(s, describe(s)).map(s -> _)).toMap

  /**
   * Checks the identities an offset recorded against the streams now, and returns those to record from here
   * on: the offset's, plus any the offset lacked (an offset of version 1, or one written while describing
   * was denied). Describes each stream once per query run.
   */
  def check(recorded: Map[String, StreamIdentity]): Map[String, StreamIdentity] = {
    val now = current()
    streams.foreach { stream =>
      (recorded.get(stream), now.get(stream)) match {
        case (Some(before), Some(after)) if before != after =>
          throw KinesisErrors.streamRecreated(
            stream,
            s"the checkpoint read the stream created at ${Instant.ofEpochMilli(before.createdAtMillis)}, the " +
              s"stream of that name now was created at ${Instant.ofEpochMilli(after.createdAtMillis)}"
          )
        case (None, Some(after)) =>
          log.info(s"The checkpoint does not say which stream '$stream' it read; from now on it records $after")
        case _ =>
      }
    }
    now ++ recorded
  }

  /** Asks Kinesis again, as when a stream seems gone, and checks as [[check]] does. */
  def recheck(recorded: Map[String, StreamIdentity]): Unit = {
    known.clear()
    check(recorded)
  }

  /**
   * Fails if a listed shard begins after the position the offset reached in it, or after the record it
   * starts at: a shard of a new stream.
   */
  def checkShards(positions: Map[ShardKey, ShardPosition], listed: Map[ShardKey, ShardInfo]): Unit =
    positions.foreach {
      case (key, ShardPosition.After(seq, _)) => checkBegins(key, seq, "that the checkpoint had read in it", listed)
      case (key, ShardPosition.At(seq)) => checkBegins(key, seq, "where the checkpoint starts it", listed)
      case _ =>
    }

  private def checkBegins(key: ShardKey, seq: String, what: String, listed: Map[ShardKey, ShardInfo]): Unit =
    listed.get(key).filter(s => SequenceNumbers.compare(s.startingSequenceNumber, seq) > 0).foreach { shard =>
      throw KinesisErrors.streamRecreated(
        key.stream,
        s"its shard ${key.shardId} now begins at sequence number ${shard.startingSequenceNumber}, after " +
          s"sequence number $seq $what"
      )
    }

  private def describe(stream: String): Option[StreamIdentity] =
    try {
      val summary = api.describeStream(stream)
      Some(StreamIdentity(summary.arn, summary.createdAtMillis))
    } catch {
      case e: KinesisApiException.AccessDenied =>
        log.warn(
          s"DescribeStreamSummary is denied on stream '$stream' ($e): the query cannot record which stream of " +
            "that name it reads, and tells a deleted and recreated stream only by its shards. Allow " +
            "kinesis:DescribeStreamSummary to have both checks."
        )
        None
      case e: KinesisApiException.ResourceNotFound => throw e
      case NonFatal(e) =>
        log.warn(s"Could not describe stream '$stream' ($e); its identity is checked when the query next starts")
        None
    }
}
