// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import io.github.sparkkinesis.config.{AwsConfig, PrefetchConfig}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import org.apache.spark.sql.connector.read.streaming.PartitionOffset
import org.apache.spark.sql.connector.read.InputPartition

/**
 * One shard of a real-time batch: a task reads it from `from` for the whole batch, handing each record on
 * as it comes. `reading` paces the calls as prefetching does (`minFetchPeriod`, `maxFetchRate`,
 * `maxRecordsPerFetch`).
 *
 * @param consumerArn read through this enhanced fan-out consumer's subscription; None: by polling
 */
private[sparkkinesis] final case class RealTimeInputPartition(
    shard: ShardKey,
    from: ShardPosition,
    aws: AwsConfig,
    reading: PrefetchConfig,
    consumerArn: Option[String] = None)
    extends InputPartition

/**
 * Where a real-time task left its shard at the batch's end: after the last record it handed on (inside a
 * KPL aggregate if it stopped there), [[ShardPosition.ShardEnd]] if it read a closed shard to its end, or
 * where it started if nothing came. Sent from the executor to the driver, which merges them into the
 * batch's end offset.
 *
 * @param millisBehindLatest MillisBehindLatest of the task's last answer from Kinesis, if it had one
 */
private[sparkkinesis] final case class RealTimeShardOffset(
    shard: ShardKey,
    position: ShardPosition,
    millisBehindLatest: Option[Long])
    extends PartitionOffset
