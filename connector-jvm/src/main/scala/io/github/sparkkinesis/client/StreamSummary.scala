// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/**
 * What DescribeStreamSummary says of a stream.
 *
 * @param openShards         its count of open shards
 * @param maxRecordBytes     the largest record (data and partition key) it takes now: `MaxRecordSizeInKiB`,
 *                           1 MiB by default and up to 10 MiB; None when the endpoint does not say (one that
 *                           predates large records, whose streams take at most 1 MiB)
 * @param keysIgnored        Kinesis places its records itself (`RecordDistributionStrategy` AUTO): partition
 *                           and explicit hash keys do not choose a record's shard, records may come without a
 *                           partition key, and KPL aggregation is not supported
 */
private[sparkkinesis] final case class StreamSummary(
    name: String,
    arn: String,
    status: String,
    createdAtMillis: Long,
    openShards: Int,
    maxRecordBytes: Option[Long] = None,
    keysIgnored: Boolean = false) {

  /** The largest record the stream takes now: what it says, else Kinesis' default. */
  def recordLimit: Long = maxRecordBytes.getOrElse(StreamSummary.DefaultMaxRecordBytes)
}

private[sparkkinesis] object StreamSummary {

  /** What a stream takes when its maximum record size was never raised: 1 MiB. */
  val DefaultMaxRecordBytes: Long = 1024L * 1024

  /** The most any stream takes (`MaxRecordSizeInKiB` 10,240): 10 MiB. */
  val LargestMaxRecordBytes: Long = 10L * 1024 * 1024
}
