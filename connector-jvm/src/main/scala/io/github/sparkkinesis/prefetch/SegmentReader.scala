// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.reading.{ReadEnd, RecordCursor, ShardRangeReader}
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Reads the records of a stretch of a shard, (from, to]: from its prefetched block when the block is still
 * there, else again from Kinesis by sequence number ([[ShardRangeReader]]), so a batch holds the same records
 * either way, as a [[RecordCursor]]: over the block's bytes, or over the records Kinesis returned. Used by the
 * partition readers, and by the driver when a trigger limit cuts a stretch in two.
 */
private[sparkkinesis] object SegmentReader {
  private val log = LoggerFactory.getLogger(getClass)

  /** Where a stretch's records came from, for logs and tests. */
  sealed trait Source
  case object FromBlock extends Source
  case object FromKinesis extends Source

  def read(
      segment: Segment,
      store: BlockStore,
      api: => KinesisApi,
      reading: ReadConfig,
      clock: Clock): (Source, RecordCursor) =
    segment.block.flatMap(store.get) match {
      case Some(records) => (FromBlock, clip(segment, records))
      case None =>
        segment.block.foreach { b =>
          log.info(s"Prefetched block ${b.name} of ${segment.shard} is gone; reading its range from Kinesis")
        }
        val end = segment.lastRecord.fold[ReadEnd](ReadEnd.Open)(ReadEnd.Through)
        val range = new ShardRangeReader(api, segment.shard, segment.from, end, reading, clock)
        (FromKinesis, RecordCursor.of(range))
    }

  /** The block's records within the stretch; fails if the block does not reach the stretch's end. */
  private def clip(segment: Segment, records: BlockCursor): BlockCursor =
    records.clip(segment.from, segment.lastRecord, Some(segment.records)) {
      KinesisErrors.rangeIncomplete(
        segment.shard.stream,
        segment.shard.shardId,
        segment.from.toString,
        s"sequence number ${segment.lastRecord.fold("?")(_.sequenceNumber)}",
        s"the end of block ${segment.block.fold("?")(_.name)}"
      )
    }
}
