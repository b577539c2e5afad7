// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.batch

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reading.ReadEnd

/**
 * What one task of a batch read reads: the records of `shard` after `from` up to `end`, as the driver fixed
 * them before any task ran. Serializable: it travels to the task.
 */
private[sparkkinesis] final case class BatchRange(shard: ShardKey, from: ShardPosition, end: ReadEnd) {
  override def toString: String = s"$shard ($from, $end]"
}
