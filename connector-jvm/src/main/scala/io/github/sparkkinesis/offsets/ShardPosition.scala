package io.github.sparkkinesis.offsets

import io.github.sparkkinesis.client.IteratorStart

/** Identifies a shard across the streams of one query. */
final case class ShardKey(stream: String, shardId: String) {
  override def toString: String = s"$stream/$shardId"
}

/**
 * How far a shard has been read: everything before this position belongs to earlier batches. A batch's
 * range in a shard is from the previous batch's position (exclusive of what it read) to its own.
 */
sealed trait ShardPosition extends Serializable {

  /** Where to resume reading, or None when nothing is left to read. */
  def resumeAt: Option[IteratorStart]
}

object ShardPosition {

  /** Nothing read yet; start at the oldest retained record. */
  case object TrimHorizon extends ShardPosition {
    def resumeAt: Option[IteratorStart] = Some(IteratorStart.TrimHorizon)
  }

  /** Nothing read yet; start at the first record that arrived at or after this instant. */
  final case class AtTimestamp(epochMillis: Long) extends ShardPosition {
    def resumeAt: Option[IteratorStart] = Some(IteratorStart.AtTimestamp(epochMillis))
  }

  /** Read up to and including this sequence number. */
  final case class After(sequenceNumber: String) extends ShardPosition {
    def resumeAt: Option[IteratorStart] = Some(IteratorStart.AfterSequenceNumber(sequenceNumber))
  }

  /** A closed shard read to its end: nothing is left. */
  case object ShardEnd extends ShardPosition {
    def resumeAt: Option[IteratorStart] = None
  }
}

/** Kinesis sequence numbers are decimal strings of up to 128 bits; they order numerically, not as text. */
object SequenceNumbers {
  def compare(a: String, b: String): Int =
    if (a.length != b.length) Integer.compare(a.length, b.length) else a.compareTo(b)
}
