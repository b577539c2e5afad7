// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.KinesisApi
import io.github.sparkkinesis.config.{KinesisOptions, KinesisSinkConfig}
import io.github.sparkkinesis.errors.KinesisErrors
import org.slf4j.LoggerFactory

/**
 * When a write is planned, a look at the stream `streamName` names: a stream whose records Kinesis places
 * itself (`RecordDistributionStrategy` AUTO) ignores partition and explicit hash keys, so the write is
 * warned of it, once; and since such a stream does not support KPL aggregation (AWS warns that its
 * consumers may drop aggregated records), `kplAggregation` fails the write there, before any row is read.
 * One DescribeStreamSummary call; a stream that cannot be described is not looked at (the tasks report a
 * missing stream as they always do). Streams named by a `stream` column are not looked at. Driver side.
 */
private[sparkkinesis] object KeysIgnoredCheck {
  private val log = LoggerFactory.getLogger(getClass)

  def check(config: KinesisSinkConfig, api: => KinesisApi): Unit = config.stream.foreach { stream =>
    val ignored =
      try api.describeStream(stream).keysIgnored
      catch {
        case NonFatal(e) =>
          log.debug(s"Could not describe stream '$stream' to see whether it ignores partition keys: $e")
          false
      }
    if (ignored) {
      if (config.aggregateMaxBytes.isDefined)
        throw KinesisErrors.invalidOption(
          KinesisOptions.KplAggregation.key,
          "true",
          s"stream '$stream' places its records itself (RecordDistributionStrategy AUTO), which does not support " +
            "KPL aggregation: its consumers may drop aggregated records. Write plain records to it",
          "false"
        )
      log.warn(
        s"Stream '$stream' places its records itself (RecordDistributionStrategy AUTO): the partition keys and " +
          "explicit hash keys this write gives do not choose a record's shard, so records of one key may land " +
          "in several shards and be read out of the order they were written in.")
    }
  }
}
