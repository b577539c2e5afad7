// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import org.slf4j.LoggerFactory

/**
 * Turns the Kinesis records of a shard into the records producers wrote: a KPL aggregated record into its
 * user records, each with its own partition key and data, the aggregate's sequence number and arrival time,
 * and its index as sub-sequence number; any other record as it is. A record that starts like an aggregate
 * but is none (its digest does not match, say) is passed on whole, as the KCL does, logged and counted.
 * Stateless and thread-safe.
 */
private[sparkkinesis] object Deaggregation {
  private val log = LoggerFactory.getLogger(getClass)

  /** The user records of `records` that come after `from`, and how many records were corrupt aggregates. */
  def userRecords(shard: ShardKey, records: Seq[KinesisRecord], from: ShardPosition): (Seq[KinesisRecord], Int) = {
    var corrupt = 0
    val expanded = Vector.newBuilder[KinesisRecord]
    records.foreach { record =>
      AggregatedRecords.decode(record.data) match {
        case AggregatedRecords.Plain => expanded += record
        case AggregatedRecords.Aggregate(users) =>
          var index = 0L
          users.foreach { user =>
            expanded += record.copy(partitionKey = user.partitionKey, data = user.data, subSequenceNumber = Some(index))
            index += 1
          }
        case AggregatedRecords.Corrupt(reason) =>
          corrupt += 1
          log.warn(
            s"Record ${record.sequenceNumber} of $shard starts like a KPL aggregated record but is none " +
              s"($reason); it is passed on as one record")
          expanded += record
      }
    }
    val after = from match {
      case a: ShardPosition.After if a.subSequenceNumber.isDefined =>
        expanded.result().dropWhile(r => a.covers(r.sequenceNumber, r.subSequenceNumber))
      case _ => expanded.result()
    }
    (after, corrupt)
  }
}
