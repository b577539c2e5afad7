// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

/**
 * How far a shard has been read: everything before this position belongs to earlier batches. A batch's
 * range in a shard is from the previous batch's position (exclusive of what it read) to its own.
 */
private[sparkkinesis] sealed trait ShardPosition extends Serializable

private[sparkkinesis] object ShardPosition {

  /** Nothing read yet; start at the oldest retained record. */
  case object TrimHorizon extends ShardPosition

  /** Nothing read yet; start at the first record that arrived at or after this instant. */
  final case class AtTimestamp(epochMillis: Long) extends ShardPosition

  /**
   * Nothing read yet from this record on; start at it, inclusive. Only a user's `initialPosition` sets it
   * (`at_sequence_number`), and it stays in the offsets until the shard's first batch reads past it.
   */
  final case class At(sequenceNumber: String) extends ShardPosition

  /**
   * Read up to and including this record. Reading stopped inside a KPL aggregated record when
   * `subSequenceNumber` is set: its user records up to and including that one were read, so reading resumes
   * at the aggregate and skips them. None: the whole Kinesis record was read.
   */
  final case class After(sequenceNumber: String, subSequenceNumber: Option[Long] = None) extends ShardPosition {

    /** Whether the record of these numbers is at or before this position: already read. */
    def covers(recordSequenceNumber: String, recordSubSequenceNumber: Option[Long]): Boolean =
      SequenceNumbers.compare(recordSequenceNumber, recordSubSequenceNumber, sequenceNumber, subSequenceNumber) <= 0

    /** Whether this position is at or before `other`. */
    def notAfter(other: After): Boolean =
      SequenceNumbers.compare(sequenceNumber, subSequenceNumber, other.sequenceNumber, other.subSequenceNumber) <= 0
  }

  /** A closed shard read to its end: nothing is left. */
  case object ShardEnd extends ShardPosition
}
