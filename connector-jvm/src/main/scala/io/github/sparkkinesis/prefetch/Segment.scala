// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardKey, ShardPosition}

/**
 * A stretch of one shard that the prefetcher has read: the records after `from` up to `to`. A stretch with
 * records ends after its last record (see [[ShardPosition.After]]) and is held in `block`; the end of a
 * closed shard is a stretch without records from the last position to `ShardEnd`. Stretches of a shard follow one another:
 * each starts where the previous one ends.
 *
 * @param order when the catalog received it, across all shards: older data is planned first
 */
private[sparkkinesis] final case class Segment(
    shard: ShardKey,
    from: ShardPosition,
    to: ShardPosition,
    records: Long,
    bytes: Long,
    block: Option[BlockRef],
    order: Long = 0) {

  /** The position of its last record, if it has records. */
  def lastRecord: Option[ShardPosition.After] = to match {
    case a: ShardPosition.After => Some(a)
    case _ => None
  }

  /** Whether this stretch is wholly before or at `position` (already read). */
  def endsAtOrBefore(position: ShardPosition): Boolean = Segment.atOrBefore(to, position)
}

private[sparkkinesis] object Segment {

  /** Whether a shard read up to `a` has read nothing beyond `b`: `a` is at or before `b`. */
  def atOrBefore(a: ShardPosition, b: ShardPosition): Boolean = (a, b) match {
    case (x, y) if x == y => true
    case (_, ShardPosition.ShardEnd) => true
    case (ShardPosition.ShardEnd, _) => false
    case (x: ShardPosition.After, y: ShardPosition.After) => x.notAfter(y)
    // Read up to x, to start at y: nothing from y on was read while x is before it.
    case (x: ShardPosition.After, ShardPosition.At(y)) => SequenceNumbers.compare(x.sequenceNumber, y) < 0
    case (_: ShardPosition.After, _) => false
    case (_, _) => false
  }
}
