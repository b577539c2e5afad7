// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import org.apache.spark.sql.connector.read.streaming.PartitionOffset
import org.apache.spark.sql.connector.read.InputPartition

/**
 * A shard of a real-time batch, read from `from` for the whole batch.
 *
 * @param consumerArn read through this enhanced fan-out consumer's subscription; None: by polling
 */
private[sparkkinesis] final case class RealTimeShard(
    key: ShardKey,
    from: ShardPosition,
    consumerArn: Option[String] = None)

/**
 * The shards one task of a real-time batch reads, each handed on record by record as it comes ([[RealTimeReader]]).
 * `reading` paces the calls as prefetching does (`minFetchPeriod`, `maxFetchRate`, `maxRecordsPerFetch`).
 */
private[sparkkinesis] final case class RealTimeInputPartition(
    shards: Seq[RealTimeShard],
    aws: AwsConfig,
    reading: ReadConfig)
    extends InputPartition

/**
 * Where a real-time task left its shard at the batch's end: after the last record it handed on (inside a
 * KPL aggregate if it stopped there), [[ShardPosition.ShardEnd]] if it read a closed shard to its end, or
 * where it started if nothing came.
 *
 * @param millisBehindLatest MillisBehindLatest of the task's last answer from Kinesis for it, if it had one
 * @param consumerGone       its enhanced fan-out consumer was found gone, and the shard polled instead
 */
private[sparkkinesis] final case class RealTimeShardOffset(
    shard: ShardKey,
    position: ShardPosition,
    millisBehindLatest: Option[Long],
    consumerGone: Boolean = false)

/**
 * Where a real-time task left each of its shards. Sent from the executor to the driver, which merges the
 * tasks' offsets into the batch's end offset.
 */
private[sparkkinesis] final case class RealTimeTaskOffset(shards: Seq[RealTimeShardOffset]) extends PartitionOffset
