// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/**
 * A shard as Kinesis lists it. A closed shard (after a split or merge) has an ending sequence number;
 * its children name it as parent.
 */
private[sparkkinesis] final case class ShardInfo(
    shardId: String,
    parentShardId: Option[String],
    adjacentParentShardId: Option[String],
    startingSequenceNumber: String,
    endingSequenceNumber: Option[String],
    hashKeyRange: (BigInt, BigInt) = (BigInt(0), ShardInfo.MaxHashKey)) {

  def parents: Seq[String] = parentShardId.toSeq ++ adjacentParentShardId.toSeq

  def isClosed: Boolean = endingSequenceNumber.isDefined
}

private[sparkkinesis] object ShardInfo {
  val MaxHashKey: BigInt = BigInt(2).pow(128) - 1
}
