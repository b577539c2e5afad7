// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.client.{ClientUse, KinesisApi, SharedKinesisApis}
import io.github.sparkkinesis.config.KinesisSourceConfig
import org.apache.spark.sql.SparkSession

/**
 * Where a source's prefetch tasks run and keep their blocks, and how tasks reach Kinesis. Travels to the
 * executors with the partition reader factory.
 */
private[sparkkinesis] trait PrefetchRuntime extends Serializable {
  def store: BlockStore

  /** The Kinesis client of this JVM for the given settings, shared by its tasks. */
  def executorApi(aws: AwsConfig): KinesisApi

  /** Called on the query's thread when prefetching starts. */
  def jobs(config: KinesisSourceConfig): PrefetchJobs
}

/** Spark jobs on the query's SparkContext, blocks in the executors' BlockManagers. */
private[sparkkinesis] object SparkPrefetchRuntime extends PrefetchRuntime {
  override def store: BlockStore = SparkBlockStore

  override def executorApi(aws: AwsConfig): KinesisApi = SharedKinesisApis.get(aws, ClientUse.Reading)

  override def jobs(config: KinesisSourceConfig): PrefetchJobs =
    new SparkPrefetchJobs(SparkSession.active.sparkContext, config.prefetch, config.aws, config.description)
}
