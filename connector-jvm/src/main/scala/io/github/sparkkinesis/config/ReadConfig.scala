// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

/**
 * How a shard is read, in every mode (prefetch tasks, real-time tasks, batch reads and ranges read again):
 * the pacing of the calls within Kinesis' limits per shard, and what happens when records are gone or
 * Kinesis cannot be reached. Serializable: it travels to the tasks.
 *
 * @param maxRecordsPerFetch     records asked for per GetRecords call
 * @param maxFetchBytesPerSecond per shard: the next call waits until the bytes of the last one fit
 * @param minFetchPeriodMs       per shard: least time between two GetRecords calls
 * @param failOnDataLoss         whether records trimmed before they were read fail the read
 * @param outageTimeoutMs        how long a read tries again while every call fails (None: forever)
 * @param subscriptionLifetimeMs enhanced fan-out: a subscription older than this is renewed (Kinesis ends
 *                               each after five minutes anyway; tests shorten it)
 */
private[sparkkinesis] final case class ReadConfig(
    maxRecordsPerFetch: Int,
    maxFetchBytesPerSecond: Long,
    minFetchPeriodMs: Long,
    failOnDataLoss: Boolean,
    outageTimeoutMs: Option[Long],
    subscriptionLifetimeMs: Long)

private[sparkkinesis] object ReadConfig {

  /** `maxFetchRate` is in MB/s, as Kinesis' limits are: 1 MB = 2^20 bytes. */
  val MB: Long = 1024L * 1024

  /** The reading options of `options`, parsed. */
  def apply(options: ParsedOptions): ReadConfig =
    ReadConfig(
      maxRecordsPerFetch = options.required(KinesisOptions.MaxRecordsPerFetch),
      maxFetchBytesPerSecond = math.round(options.required(KinesisOptions.MaxFetchRate) * MB),
      minFetchPeriodMs = options.required(KinesisOptions.MinFetchPeriod),
      failOnDataLoss = options.required(KinesisOptions.FailOnDataLoss),
      outageTimeoutMs = options.required(KinesisOptions.OutageTimeout),
      subscriptionLifetimeMs = options.required(KinesisOptions.SubscriptionLifetime)
    )
}
