// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import io.github.sparkkinesis.config.KinesisSourceConfig
import io.github.sparkkinesis.source.KinesisMicroBatchStream
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream

/** The source's stream before Spark 4.1, which has no real-time mode: micro-batches. */
private[sparkkinesis] object StreamShims {
  def stream(config: KinesisSourceConfig, checkpointLocation: String): MicroBatchStream =
    KinesisMicroBatchStream(config, checkpointLocation)
}
