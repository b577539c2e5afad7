// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

/**
 * CloudWatch's PutMetricData, once, no retry: the seam where unit tests put a fake. Used by one sender thread
 * at a time; `close()` is idempotent.
 */
private[sparkkinesis] trait CloudWatchApi extends AutoCloseable {

  /**
   * Sends one request ([[PutMetricDataRequests.Request]]'s body).
   *
   * @throws CloudWatchFailure when CloudWatch could not be reached, or did not take the data
   */
  def putMetricData(body: String): Unit
}

/**
 * PutMetricData failed. `reason` says why, as a log line can show it (never a secret); `keepData` says whether
 * the data may be taken another time (CloudWatch out of reach, throttling, failing, refusing the credentials),
 * or not (CloudWatch refused the data themselves: sending them again would fail again).
 */
private[sparkkinesis] final class CloudWatchFailure(val reason: String, val keepData: Boolean, cause: Throwable = null)
    extends Exception(reason, cause)
