// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

/**
 * How the background prefetch, and the tasks that read a batch, read Kinesis and store what they read.
 * Serializable: it travels to the tasks.
 *
 * @param maxFetchBytesPerSecond     per shard: the next call waits until the bytes of the last one fit
 * @param minFetchPeriodMs           per shard: least time between two GetRecords calls
 * @param maxFetchDurationMs         longest a prefetch task buffers before handing its blocks over
 * @param fetchBufferBytes           prefetched, uncommitted bytes above which prefetching pauses
 * @param coalesceThresholdBlockSize average block size below which a batch's blocks are packed together
 * @param coalesceBinSize            bytes per packed partition
 * @param failOnDataLoss             whether records trimmed before they were read fail the query
 * @param subscriptionLifetimeMs     enhanced fan-out: a subscription older than this is renewed (Kinesis
 *                                   ends each after five minutes anyway; tests shorten it)
 */
private[sparkkinesis] final case class PrefetchConfig(
    maxRecordsPerFetch: Int,
    maxFetchBytesPerSecond: Long,
    minFetchPeriodMs: Long,
    maxFetchDurationMs: Long,
    fetchBufferBytes: Long,
    shardsPerTask: Int,
    coalesceThresholdBlockSize: Long,
    coalesceBinSize: Long,
    failOnDataLoss: Boolean,
    subscriptionLifetimeMs: Long
)

private[sparkkinesis] object PrefetchConfig {

  /** `maxFetchRate` is in MB/s, as Kinesis' limits are: 1 MB = 2^20 bytes. */
  val MB: Long = 1024L * 1024
}
