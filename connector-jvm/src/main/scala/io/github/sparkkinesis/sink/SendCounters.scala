// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.atomic.AtomicLong

/**
 * What a task has sent, for the sink's metrics: Kinesis records and the rows in them (more than one per
 * KPL aggregated record), their data's bytes, records sent again and requests Kinesis throttled.
 * Thread-safe.
 */
private[sparkkinesis] final class SendCounters {
  val records = new AtomicLong()
  val rows = new AtomicLong()
  val bytes = new AtomicLong()
  val retriedRecords = new AtomicLong()
  val throttledRequests = new AtomicLong()
}
