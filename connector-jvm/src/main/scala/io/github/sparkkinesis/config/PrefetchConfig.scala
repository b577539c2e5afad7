// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

/**
 * How a streaming query prefetches shards in the background and packs what it prefetched into batches: the
 * options of micro-batches alone. How each shard is read is every mode's ([[ReadConfig]], beside it in
 * [[KinesisSourceConfig]]). Serializable: it travels to the prefetch tasks.
 *
 * @param maxFetchDurationMs         longest a prefetch task buffers before handing its blocks over
 * @param fetchBufferBytes           prefetched, uncommitted bytes above which prefetching pauses
 * @param shardsPerTask              how many shards a prefetch task reads at the same moment: its threads.
 *                                   A job has a task per `shardsPerTask` shards when the application's cores
 *                                   allow, else fewer tasks, whose shards then take turns on those threads
 * @param maxPartitions              the option maxPartitions: at most so many tasks a prefetch job (more only if
 *                                   a task would hold over `PrefetchTask.MaxShardsPerTask` shards)
 * @param coalesceThresholdBlockSize average block size below which a batch's blocks are packed together
 * @param coalesceBinSize            bytes per packed partition
 */
private[sparkkinesis] final case class PrefetchConfig(
    maxFetchDurationMs: Long,
    fetchBufferBytes: Long,
    shardsPerTask: Int,
    coalesceThresholdBlockSize: Long,
    coalesceBinSize: Long,
    maxPartitions: Option[Int] = None)
