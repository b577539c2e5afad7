// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import io.github.sparkkinesis.client.{IteratorStart, KinesisRecord}

/**
 * How far a shard has been read: everything before this position belongs to earlier batches. A batch's
 * range in a shard is from the previous batch's position (exclusive of what it read) to its own.
 */
private[sparkkinesis] sealed trait ShardPosition extends Serializable {

  /** Where to resume reading, or None when nothing is left to read. */
  def resumeAt: Option[IteratorStart]
}

private[sparkkinesis] object ShardPosition {

  /** Nothing read yet; start at the oldest retained record. */
  case object TrimHorizon extends ShardPosition {
    def resumeAt: Option[IteratorStart] = Some(IteratorStart.TrimHorizon)
  }

  /** Nothing read yet; start at the first record that arrived at or after this instant. */
  final case class AtTimestamp(epochMillis: Long) extends ShardPosition {
    def resumeAt: Option[IteratorStart] = Some(IteratorStart.AtTimestamp(epochMillis))
  }

  /**
   * Read up to and including this record. Reading stopped inside a KPL aggregated record when
   * `subSequenceNumber` is set: its user records up to and including that one were read, so reading resumes
   * at the aggregate and skips them. None: the whole Kinesis record was read.
   */
  final case class After(sequenceNumber: String, subSequenceNumber: Option[Long] = None) extends ShardPosition {
    def resumeAt: Option[IteratorStart] = Some(subSequenceNumber match {
      case None => IteratorStart.AfterSequenceNumber(sequenceNumber)
      case Some(_) => IteratorStart.AtSequenceNumber(sequenceNumber)
    })

    /** Whether the record is at or before this position: already read. */
    def covers(record: KinesisRecord): Boolean =
      SequenceNumbers.compare(record.sequenceNumber, record.subSequenceNumber, sequenceNumber, subSequenceNumber) <= 0

    /** Whether this position is at or before `other`. */
    def notAfter(other: After): Boolean =
      SequenceNumbers.compare(sequenceNumber, subSequenceNumber, other.sequenceNumber, other.subSequenceNumber) <= 0
  }

  /** A closed shard read to its end: nothing is left. */
  case object ShardEnd extends ShardPosition {
    def resumeAt: Option[IteratorStart] = None
  }
}
