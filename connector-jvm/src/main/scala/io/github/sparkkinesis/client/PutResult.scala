// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/** The outcome of one record of a PutRecords call: its place in the shard, or why it failed. */
private[sparkkinesis] final case class PutResult(
    shardId: Option[String],
    sequenceNumber: Option[String],
    errorCode: Option[String]) {
  def succeeded: Boolean = errorCode.isEmpty
}
