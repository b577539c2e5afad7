// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.shards

import io.github.sparkkinesis.client.{IteratorStart, KinesisApi, KinesisApiException, ShardInfo}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardKey, ShardPosition}

/**
 * Checks, before a read starts, the shards a user started at or after a sequence number (`initialPosition`
 * with `at_sequence_number` or `after_sequence_number`), so that a wrong one fails at once, naming the
 * shard, instead of being read as records lost: the shard must be listed, the sequence number within the
 * shard's range as ListShards gives it (not before its first, not after a closed shard's last), and Kinesis
 * must open an iterator there (it refuses another shard's sequence number, or one of a record retention has
 * trimmed: whatever `failOnDataLoss` says, as the user named that record). One GetShardIterator call per
 * shard named. Stateless; driver side.
 */
private[sparkkinesis] object SequenceNumberStarts {

  /**
   * Fails with `KINESIS_START_NOT_IN_SHARD` for the first shard of `positions` (in order of stream and shard)
   * whose sequence number is not in it; other failures of the calls are the caller's to make user-facing.
   *
   * @param option the option that named them, for the error
   */
  def check(
      option: String,
      positions: Map[ShardKey, ShardPosition],
      listed: Map[ShardKey, ShardInfo],
      api: KinesisApi): Unit =
    positions.toSeq.sortBy { case (k, _) => (k.stream, k.shardId) }.foreach {
      case (key, ShardPosition.At(seq)) =>
        checkOne(option, key, "at", seq, IteratorStart.AtSequenceNumber(seq), listed, api)
      case (key, ShardPosition.After(seq, _)) =>
        checkOne(option, key, "after", seq, IteratorStart.AfterSequenceNumber(seq), listed, api)
      case _ =>
    }

  private def checkOne(
      option: String,
      key: ShardKey,
      position: String,
      seq: String,
      start: IteratorStart,
      listed: Map[ShardKey, ShardInfo],
      api: KinesisApi): Unit = {
    def refuse(problem: String, cause: Throwable = null) =
      throw KinesisErrors.startNotInShard(option, key.stream, key.shardId, position, seq, problem, cause)
    val shard = listed.getOrElse(
      key,
      refuse(s"Kinesis lists no such shard in the stream (it has ${shardsOf(key.stream, listed)})"))
    if (SequenceNumbers.compare(seq, shard.startingSequenceNumber) < 0)
      refuse(s"the shard begins at sequence number ${shard.startingSequenceNumber}")
    shard.endingSequenceNumber.filter(SequenceNumbers.compare(seq, _) > 0).foreach { end =>
      refuse(s"the shard is closed and ends at sequence number $end")
    }
    try api.getShardIterator(key.stream, key.shardId, start)
    catch {
      // Kinesis answers InvalidArgumentException (TrimmedSequence here); emulators, ResourceNotFound for the
      // record, as the shard was just listed.
      case e @ (_: KinesisApiException.TrimmedSequence | _: KinesisApiException.ResourceNotFound) =>
        refuse(
          s"Kinesis refuses it (${e.getMessage}): it is another shard's sequence number, or retention has " +
            "trimmed the record",
          e)
    }
  }

  private def shardsOf(stream: String, listed: Map[ShardKey, ShardInfo]): String = {
    val ids = listed.keys.filter(_.stream == stream).map(_.shardId).toSeq.sorted
    if (ids.isEmpty) "no shard"
    else if (ids.size <= 5) ids.mkString(", ")
    else s"${ids.take(5).mkString(", ")} and ${ids.size - 5} more"
  }
}
