// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.io.IOException
import java.time.Duration

import software.amazon.awssdk.awscore.exception.AwsServiceException
import software.amazon.awssdk.core.exception.SdkClientException
import software.amazon.awssdk.retries.api.{BackoffStrategy, RetryStrategy}
import software.amazon.awssdk.retries.StandardRetryStrategy

/**
 * The AWS SDK's retries of GetRecords: up to two more attempts, 100 ms then 200 ms later (with jitter), of a
 * call that failed on the network or with a 5xx answer, and none of a throttling answer, which the reader's
 * own pacing answers (see [[KinesisClientFactory]]). Without the SDK's retry quota (its circuit breaker): a
 * reader that fails too long gives up by its own rules. Stateless.
 */
private[client] object GetRecordsRetries {

  val MaxAttempts = 3

  def strategy: RetryStrategy =
    StandardRetryStrategy
      .builder()
      .maxAttempts(MaxAttempts)
      .backoffStrategy(BackoffStrategy.exponentialDelay(Duration.ofMillis(100), Duration.ofSeconds(1)))
      .circuitBreakerEnabled(false)
      .retryOnException(e => retried(e))
      // Else the client adds the SDK's own conditions, which retry throttling.
      .useClientDefaults(false)
      .build()

  /** Whether the SDK tries a GetRecords call that failed with `failure` again. */
  def retried(failure: Throwable): Boolean = failure match {
    case e: AwsServiceException =>
      val code = Option(e.awsErrorDetails()).flatMap(d => Option(d.errorCode()))
      !e.isThrottlingException && !RateLimitErrors.isThrottling(e.statusCode(), code) && e.statusCode() >= 500
    case e: SdkClientException => e.retryable() || e.getCause.isInstanceOf[IOException]
    case _ => false
  }
}
