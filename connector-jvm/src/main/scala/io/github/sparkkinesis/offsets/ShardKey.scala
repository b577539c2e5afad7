// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

/** Identifies a shard across the streams of one query. */
private[sparkkinesis] final case class ShardKey(stream: String, shardId: String) {
  override def toString: String = s"$stream/$shardId"
}
