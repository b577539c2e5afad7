// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.config.KinesisSourceConfig
import org.apache.spark.sql.SparkSession
import org.apache.spark.util.LongAccumulator

/**
 * Where a source's prefetch tasks run and keep their blocks. Travels to the executors with the partition
 * reader factory. How a task reaches Kinesis is not prefetching's own: `client.ExecutorApis`.
 */
private[sparkkinesis] trait PrefetchRuntime extends Serializable {
  def store: BlockStore

  /**
   * Called on the query's thread when prefetching starts; each task adds AWS' throttling answers to its
   * calls to `rateLimitErrors`.
   */
  def jobs(config: KinesisSourceConfig, rateLimitErrors: LongAccumulator): PrefetchJobs

  /**
   * A count of one query that its tasks, wherever they run, add to and its driver reads: a Spark accumulator,
   * which Spark merges as each task ends. Called on the query's thread.
   */
  def taskCount(): LongAccumulator
}

/** Spark jobs on the query's SparkContext, blocks in the executors' BlockManagers. */
private[sparkkinesis] object SparkPrefetchRuntime extends PrefetchRuntime {
  override def store: BlockStore = SparkBlockStore

  override def jobs(config: KinesisSourceConfig, rateLimitErrors: LongAccumulator): PrefetchJobs =
    new SparkPrefetchJobs(
      SparkSession.active.sparkContext,
      config.prefetch,
      config.reading,
      config.aws,
      config.description,
      rateLimitErrors)

  override def taskCount(): LongAccumulator = SparkSession.active.sparkContext.longAccumulator
}
