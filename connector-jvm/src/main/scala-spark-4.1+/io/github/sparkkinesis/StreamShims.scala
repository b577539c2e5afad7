// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import io.github.sparkkinesis.config.KinesisSourceConfig
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream

/** The source's stream on Spark 4.1 and later: micro-batches, or real-time mode if Spark asks for it. */
private[sparkkinesis] object StreamShims {
  def stream(config: KinesisSourceConfig, checkpointLocation: String): MicroBatchStream =
    EitherModeStream(config, checkpointLocation)
}
