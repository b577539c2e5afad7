// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.StreamSummary

/**
 * Where the reads of a Trigger.AvailableNow run end: at the records that arrived at or after `epochMillis`,
 * the run's start, in streams whose largest records are as `largestRecordBytes` says (from
 * DescribeStreamSummary, asked after the run's start; a stream it does not name may hold the largest
 * records Kinesis allows). Serializable: it travels to the prefetch tasks.
 */
private[sparkkinesis] final case class ArrivalCutoff(epochMillis: Long, largestRecordBytes: Map[String, Long]) {

  /** The end of a shard of `stream`. */
  def endOf(stream: String): ReadEnd =
    ReadEnd.ArrivedBefore(epochMillis, largestRecordBytes.getOrElse(stream, StreamSummary.LargestMaxRecordBytes))
}
