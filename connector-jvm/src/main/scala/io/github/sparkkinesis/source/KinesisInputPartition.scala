// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.prefetch.Segment
import org.apache.spark.sql.connector.read.InputPartition

/**
 * Part of one batch: stretches of shards, each read from its prefetched block or, if that is gone, from
 * Kinesis. Fixed by the driver; serialized to the executor that reads it, preferably one holding the blocks.
 */
private[sparkkinesis] final case class KinesisInputPartition(
    segments: Seq[Segment],
    aws: AwsConfig,
    reading: ReadConfig,
    locations: Array[String]
) extends InputPartition {
  override def preferredLocations(): Array[String] = locations
}
