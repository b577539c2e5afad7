// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

/**
 * How a writing task sends records.
 *
 * @param maxInFlight      PutRecords requests of one task under way at once
 * @param retryDeadlineMs  how long records Kinesis turns down (or requests it throttles) are tried again
 *                         before the task fails: the option writeRetryTimeout
 * @param outageTimeoutMs  how long requests are tried again while every one fails (Kinesis cannot be
 *                         reached, or answers with 5xx errors): the option outageTimeout; None: forever
 */
private[sparkkinesis] final case class SendSettings(
    maxInFlight: Int,
    retryDeadlineMs: Long,
    outageTimeoutMs: Option[Long])
