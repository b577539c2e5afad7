// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.offsets.ShardPosition
import io.github.sparkkinesis.reading.RecordCursor
import io.github.sparkkinesis.realtime.RealTimeLane.Fetched
import io.github.sparkkinesis.source.KinesisRecordSchema
import io.github.sparkkinesis.util.{Clock, RecordOrigins, SystemClock}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.streaming.{PartitionOffset, SupportsRealTimeRead}
import org.slf4j.LoggerFactory

/**
 * Reads a real-time task's shards for a whole batch: takes what each call brings ([[RealTimeFeed]]) and
 * hands each record on as a row as soon as it comes, until the batch's deadline, or until every shard is
 * closed and read to its end. Each shard's position moves only with the records handed on, so the offset
 * reported at the end is exact whatever was read beyond it. A subscription open at the end is left for the
 * next batch's task on this executor. Runs in one task on an executor; not thread-safe.
 *
 * @param onClose what the task does once its reading has ended (hand on the counts of its calls)
 */
private[sparkkinesis] final class RealTimeReader(
    partition: RealTimeInputPartition,
    api: KinesisApi,
    clock: Clock = SystemClock,
    onClose: () => Unit = () => ())
    extends RealTimeReads
    with RecordOrigins.Reader {

  private val log = LoggerFactory.getLogger(getClass)
  private val shards = partition.shards.toIndexedSeq
  private val positions = shards.map(_.from).toArray
  private val counts = Array.fill(shards.size)(0L)
  private val rows = shards.map(s => new KinesisRecordSchema.RowWriter(s.key))
  private val seen = new RealTimeLane.Seen(shards.size)
  private val feed = RealTimeFeed(shards, api, partition.reading, seen, clock)
  private val startedAt = clock.nowMillis()

  /** The call whose records are being handed on, and where in them. */
  private var fetched = Option.empty[Fetched]
  private var cursor = RecordCursor.of(Iterator.empty)
  private var current: InternalRow = _
  RecordOrigins.register(this)

  override def nextBefore(deadlineMs: Long): SupportsRealTimeRead.RecordStatus = {
    var found = clock.nowMillis() < deadlineMs && nextFetched()
    while (!found && !feed.exhausted && clock.nowMillis() < deadlineMs) {
      feed.next(deadlineMs).foreach { next =>
        fetched = Some(next)
        cursor = RecordCursor.of(next.records.iterator)
        found = nextFetched()
      }
    }
    if (found) {
      val shard = fetched.get.index
      positions(shard) = cursor.position
      counts(shard) += 1
      current = rows(shard).rowOf(cursor)
      SupportsRealTimeRead.RecordStatus.newStatusWithArrivalTimeMs(cursor.arrivalMillis)
    } else SupportsRealTimeRead.RecordStatus.newStatusWithoutArrivalTime(false)
  }

  /** Moves to the next record of the call being handed on; after its last, a shard it ended has ended. */
  private def nextFetched(): Boolean = fetched.exists { f =>
    cursor.next() || {
      if (f.ended) positions(f.index) = ShardPosition.ShardEnd
      fetched = None
      false
    }
  }

  /** The Spark engine never calls it in real-time mode; a plain read would have no end. */
  override def next(): Boolean =
    throw new UnsupportedOperationException("A real-time read is driven by nextWithTimeout")

  override def get(): InternalRow = current

  override def originOf(data: Array[Byte]): Option[String] = KinesisRecordSchema.originOf(current, data)

  override def getOffset(): PartitionOffset =
    RealTimeTaskOffset(shards.indices.map { i =>
      val lag = Some(seen.lags.get(i)).filter(_ >= 0)
      RealTimeShardOffset(shards(i).key, positions(i), lag, consumerGone = seen.consumersGone.get(i) == 1)
    })

  override def close(): Unit = {
    RecordOrigins.unregister(this)
    try feed.close()
    finally onClose()
    val read = shards.indices.map(i => s"${shards(i).key} ${shards(i).from} to ${positions(i)}: ${counts(i)}")
    log.info(s"Read in real time for ${clock.nowMillis() - startedAt} ms, records by shard: ${read.mkString("; ")}")
  }
}
