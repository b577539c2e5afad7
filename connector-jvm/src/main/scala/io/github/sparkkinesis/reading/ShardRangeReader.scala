// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.{KinesisApi, KinesisRecord}
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.util.Clock

/**
 * The records of one range of a shard, after `start` up to `end`, one at a time: [[ShardRangesReader]] over
 * that one range (see it for how a range is read, and when reading it gives up). A micro-batch reads so a
 * range whose prefetched block is gone. Runs in one task on an executor; not thread-safe.
 */
private[sparkkinesis] final class ShardRangeReader(
    api: KinesisApi,
    key: ShardKey,
    start: ShardPosition,
    end: ReadEnd,
    config: ReadConfig,
    clock: Clock,
    halt: () => Unit = () => ()
) extends Iterator[KinesisRecord] {

  private val reader = new ShardRangesReader(api, IndexedSeq(ShardRange(key, start, end)), config, clock, halt)
  private var pending: Iterator[KinesisRecord] = Iterator.empty
  private var finished = false

  override def hasNext: Boolean = {
    while (!pending.hasNext && !finished) reader.next() match {
      case Some((_, records)) => pending = records.iterator
      case None => finished = true
    }
    pending.hasNext
  }

  override def next(): KinesisRecord = {
    if (!hasNext) throw new NoSuchElementException(s"$key has no records left in its range")
    pending.next()
  }
}
