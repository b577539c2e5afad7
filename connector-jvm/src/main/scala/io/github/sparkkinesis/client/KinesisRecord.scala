// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/**
 * One record as read from a shard, or one user record of a KPL aggregated record, which has the aggregate's
 * sequence number and arrival time, its own partition key and data, and its index in the aggregate as
 * `subSequenceNumber`. `data` is not copied: do not mutate it. `partitionKey` is null for a record Kinesis
 * returned without one (a stream whose records Kinesis distributes itself may).
 */
private[sparkkinesis] final case class KinesisRecord(
    partitionKey: String,
    data: Array[Byte],
    sequenceNumber: String,
    approximateArrivalMillis: Long,
    subSequenceNumber: Option[Long] = None
)
