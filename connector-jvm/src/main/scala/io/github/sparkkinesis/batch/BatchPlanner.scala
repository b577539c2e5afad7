// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.batch

import io.github.sparkkinesis.client.{ApiFailures, KinesisApi, ShardInfo}
import io.github.sparkkinesis.config.{EndPosition, InitialPosition, KinesisBatchReadConfig, KinesisOptions}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition, StreamIdentity}
import io.github.sparkkinesis.reading.{ArrivalCutoff, ReadEnd, ShardRange}
import io.github.sparkkinesis.shards.{RecordLimits, SequenceNumberStarts, ShardLineage, StreamIdentities}
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Fixes, on the driver and before any task reads, the range each shard of a batch read is read over: the
 * shards are listed once; each starts where `initialPosition` says (after a query offset's positions, or at
 * or after the sequence numbers named, checked first to be in their shards ([[SequenceNumberStarts]]), or
 * from its start when the offset does not name it, unless it is an ancestor of a shard it names, which the
 * query read to its end), and ends where `endPosition` says: what had arrived when the read is planned, an
 * instant, or an offset's positions, inclusive. Empty ranges are dropped, so an empty read makes no task
 * and waits for nothing. A range whose shard Kinesis no longer lists (closed, then removed by retention)
 * fails with its data lost, unless `failOnDataLoss` is false. The ranges come in lineage order, a shard's
 * parents before it, and each names its parents that the read reads too (`after`). Stateless; driver side.
 */
private[sparkkinesis] object BatchPlanner {
  private val log = LoggerFactory.getLogger(getClass)

  def plan(config: KinesisBatchReadConfig, api: KinesisApi, clock: Clock): Seq[ShardRange] = {
    val listed = config.streams.flatMap { stream =>
      ApiFailures.userFacing("ListShards", stream, api) {
        api.listShards(stream, config.maxShardsPerDescribe).map(info => ShardKey(stream, info.shardId) -> info)
      }
    }.toMap
    checkIdentities(config, api)
    val plannedAt = clock.nowMillis()
    config.start match {
      case InitialPosition.FromSequenceNumbers(named) =>
        ApiFailures.userFacing("GetShardIterator", named.keys.map(_.stream).toSeq.distinct.sorted.mkString(","), api) {
          SequenceNumberStarts.check(KinesisOptions.InitialPositionOption.key, named, listed, api)
        }
      case _ =>
    }
    val starts = startPositions(config.start, listed, plannedAt)
    val ranges = config.end match {
      case EndPosition.AtOffset(offset) =>
        offset.shards.toSeq.flatMap { case (key, to) =>
          val from = starts.getOrElse(key, ShardPosition.TrimHorizon)
          val end = to match {
            case last: ShardPosition.After => Some(ReadEnd.Through(last))
            case ShardPosition.ShardEnd => Some(ReadEnd.Open)
            case _ => None // nothing of the shard was read up to the offset
          }
          end.filter(_ => from != to && from != ShardPosition.ShardEnd).map(ShardRange(key, from, _))
        }
      case other =>
        val until = other match {
          case EndPosition.AtTimestamp(ms) => math.min(ms, plannedAt)
          case _ => plannedAt
        }
        val cutoff = ArrivalCutoff(
          until,
          ApiFailures.userFacing("DescribeStreamSummary", config.streams.mkString(","), api) {
            RecordLimits.of(api, config.streams)
          })
        starts.toSeq.collect {
          case (key, from) if from != ShardPosition.ShardEnd && !startsAfter(from, until) =>
            ShardRange(key, from, cutoff.endOf(key.stream))
        }
    }
    val (readable, gone) = ranges.partition(r => listed.contains(r.shard))
    gone.foreach { r =>
      val reason = "the shard was closed and its retention period ended before it was read"
      if (config.reading.failOnDataLoss)
        throw KinesisErrors.dataLoss(r.shard.stream, r.shard.shardId, s"records after ${r.from}", reason)
      log.warn(s"Skipping ${r.shard}: $reason (failOnDataLoss is false)")
    }
    // A range comes after its parents' that the read also reads: a task reading both reads them in turn.
    val read = readable.map(_.shard).toSet
    val ordered = readable
      .sortBy(r => (r.shard.stream, ShardLineage.depth(r.shard, listed), r.shard.shardId))
      .map(r => r.copy(after = listed(r.shard).parents.map(ShardKey(r.shard.stream, _)).filter(read)))
    log.info(
      s"${config.description} reads ${ordered.size} of ${listed.size} shards (initialPosition=${config.start}, " +
        s"endPosition=${config.end}, planned at ${java.time.Instant.ofEpochMilli(plannedAt)})")
    ordered
  }

  /** Where each shard listed, and each shard a query offset names, starts. */
  private def startPositions(
      start: InitialPosition,
      listed: Map[ShardKey, ShardInfo],
      plannedAt: Long): Map[ShardKey, ShardPosition] =
    start match {
      case InitialPosition.TrimHorizon => listed.map { case (key, _) => key -> ShardPosition.TrimHorizon }
      case InitialPosition.AtTimestamp(ms) => listed.map { case (key, _) => key -> ShardPosition.AtTimestamp(ms) }
      case InitialPosition.Latest =>
        listed.map { case (key, shard) =>
          key -> (if (shard.isClosed) ShardPosition.ShardEnd else ShardPosition.AtTimestamp(plannedAt))
        }
      case InitialPosition.AfterOffset(offset) => ShardLineage.startingAfter(offset.shards, listed)
      case InitialPosition.FromSequenceNumbers(named) => ShardLineage.startingAfter(named, listed)
    }

  /** A start at an instant at or after the end's: nothing arrived in between. */
  private def startsAfter(from: ShardPosition, until: Long): Boolean = from match {
    case ShardPosition.AtTimestamp(ms) => ms >= until
    case _ => false
  }

  /** Positions of a query offset are of the streams it recorded: a stream deleted and created since is refused. */
  private def checkIdentities(config: KinesisBatchReadConfig, api: KinesisApi): Unit = {
    val recorded: Map[String, StreamIdentity] = Seq(config.start, config.end).flatMap {
      case InitialPosition.AfterOffset(offset) => offset.identities
      case EndPosition.AtOffset(offset) => offset.identities
      case _ => Map.empty[String, StreamIdentity]
    }.toMap
    if (recorded.nonEmpty) {
      val identities = new StreamIdentities(api, recorded.keys.toSeq.sorted)
      ApiFailures.userFacing("DescribeStreamSummary", recorded.keys.mkString(","), api)(identities.check(recorded))
    }
  }
}
