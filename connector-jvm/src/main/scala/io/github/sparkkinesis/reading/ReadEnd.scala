// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.StreamSummary
import io.github.sparkkinesis.offsets.ShardPosition

/** Where reading a shard stops, besides the end of a closed shard, which always ends it. */
private[sparkkinesis] sealed trait ReadEnd extends Serializable

private[sparkkinesis] object ReadEnd {

  /** No end of its own: prefetching, and real-time tasks, read what comes. */
  case object Open extends ReadEnd

  /**
   * The records that arrived before this instant (epoch ms): Trigger.AvailableNow's run start, or a batch
   * read's end by time. The end is reached at the first record that arrived at or after it, or once an
   * answer given at or after it holds everything up to the shard's tip (`ReadStep.Read.whole`): a polled
   * answer at the tip, shorter than asked and with room left for the shard's largest record (so not cut
   * for its size), ends the read without a further call that would find nothing; a subscription's event
   * only when it is empty.
   *
   * @param largestRecordBytes the largest record the shard's stream may hold (its `MaxRecordSizeInKiB`);
   *                           by default the most Kinesis allows, for which only an empty answer is whole
   */
  final case class ArrivedBefore(epochMillis: Long, largestRecordBytes: Long = StreamSummary.LargestMaxRecordBytes)
      extends ReadEnd

  /** Up to and including the record at `last` (inside a KPL aggregate if it names a user record of one). */
  final case class Through(last: ShardPosition.After) extends ReadEnd

}
