// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import io.github.sparkkinesis.config.{ConsumerConfig, KinesisSourceConfig, PrefetchConfig, ReadConfig}

/** What the declared defaults of the options make: the configurations fixtures start from. */
object DefaultConfigs {
  private val parsed = KinesisSourceConfig(Map("streamName" -> "s", "region" -> "us-east-1"), () => None)

  val Prefetch: PrefetchConfig = parsed.prefetch

  val Reading: ReadConfig = parsed.reading

  val Polling: ConsumerConfig = parsed.consumer
}
