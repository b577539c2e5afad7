// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.collection.mutable.ArrayBuffer

/**
 * How a batch's stretches become input partitions. Large blocks each get a partition of their own. When the
 * batch's average block is smaller than `coalesceThresholdBlockSize`, stretches are packed into partitions
 * of about `coalesceBinSize` bytes instead, those of one executor together, and those of one shard next to
 * each other in order, so that many small blocks do not cost a task each. Stretches without a block (to be
 * read from Kinesis again) keep a partition each. Pure.
 */
private[sparkkinesis] object BatchPartitioning {

  def group(segments: Seq[Segment], coalesceThresholdBlockSize: Long, coalesceBinSize: Long): Seq[Seq[Segment]] = {
    val (held, unheld) = segments.partition(_.block.isDefined)
    val averageBlock = if (held.isEmpty) Long.MaxValue else held.map(_.bytes).sum / held.size
    val heldGroups =
      if (averageBlock >= coalesceThresholdBlockSize) held.map(Seq(_))
      else pack(held, coalesceBinSize)
    heldGroups ++ unheld.map(Seq(_))
  }

  private def pack(segments: Seq[Segment], binSize: Long): Seq[Seq[Segment]] = {
    val ordered = segments.sortBy(s => (s.block.get.preferredLocation, s.shard.stream, s.shard.shardId, s.order))
    val bins = ArrayBuffer.empty[Seq[Segment]]
    val bin = ArrayBuffer.empty[Segment]
    var binBytes = 0L
    ordered.foreach { s =>
      val sameExecutor = bin.headOption.forall(_.block.get.preferredLocation == s.block.get.preferredLocation)
      if (bin.nonEmpty && (!sameExecutor || binBytes + s.bytes > binSize)) {
        bins += bin.toList
        bin.clear()
        binBytes = 0
      }
      bin += s
      binBytes += s.bytes
    }
    if (bin.nonEmpty) bins += bin.toList
    bins.toList
  }

  /** The executors holding a partition's blocks, most bytes first: its preferred locations. */
  def locations(group: Seq[Segment]): Array[String] =
    group
      .flatMap(s => s.block.map(b => b.preferredLocation -> s.bytes))
      .groupBy(_._1)
      .toSeq
      .map { case (location, held) => location -> held.map(_._2).sum }
      .sortBy { case (location, bytes) => (-bytes, location) }
      .map(_._1)
      .toArray
}
