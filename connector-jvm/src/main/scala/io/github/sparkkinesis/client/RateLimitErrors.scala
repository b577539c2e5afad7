// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.util.concurrent.atomic.AtomicLong

/**
 * The throttling answers AWS gave the Kinesis calls of one caller (a query's driver, one task), counted per
 * attempt: those the AWS SDK retried by itself as well as those a call failed with. A caller hands it with
 * its calls through [[KinesisApi.counting]], so that callers sharing a client (the tasks of several queries
 * in one executor) each count only their own. Thread-safe.
 */
private[sparkkinesis] final class RateLimitErrors {
  private val count = new AtomicLong()

  def add(n: Long): Unit = if (n != 0) count.addAndGet(n)

  /** The throttling answers counted so far. */
  def total: Long = count.get()

  /** The throttling answers counted since the last take, to hand on once. */
  def take(): Long = count.getAndSet(0)
}

private[sparkkinesis] object RateLimitErrors {

  /**
   * The error codes of AWS' throttling answers to Kinesis calls: a shard's or stream's throughput exceeded,
   * a control-plane rate exceeded (ListShards, DescribeStreamSummary, consumer calls, SubscribeToShard more
   * than once in 5 seconds), KMS throttling a decryption, and the AWS-wide throttling codes.
   */
  val Codes: Set[String] = Set(
    "ProvisionedThroughputExceededException",
    "LimitExceededException",
    "KMSThrottlingException",
    "ThrottlingException",
    "Throttling",
    "ThrottledException",
    "TooManyRequestsException",
    "RequestLimitExceeded",
    "RequestThrottled",
    "RequestThrottledException",
    "SlowDown"
  )

  /** Whether an answer with this HTTP status and error code (if known) is AWS throttling the caller. */
  def isThrottling(status: Int, errorCode: Option[String]): Boolean =
    status == 429 || errorCode.exists(code => Codes.contains(code))
}
