// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * A range of a shard a driver fixed before any task reads it: the records after `from` up to `end`.
 * Serializable: it travels to the task that reads it.
 *
 * @param after shards whose ranges, when the same reader reads them, are read to their ends before this one:
 *              the shard's parents, so that the records of a partition key keep their order across a reshard
 */
private[sparkkinesis] final case class ShardRange(
    shard: ShardKey,
    from: ShardPosition,
    end: ReadEnd,
    after: Seq[ShardKey] = Nil) {
  override def toString: String = s"$shard ($from, $end]"
}
