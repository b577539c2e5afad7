// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

/** Kinesis sequence numbers are decimal strings of up to 128 bits; they order numerically, not as text. */
private[sparkkinesis] object SequenceNumbers {
  def compare(a: String, b: String): Int =
    if (a.length != b.length) Integer.compare(a.length, b.length) else a.compareTo(b)

  /**
   * Orders user records: by sequence number, then within a KPL aggregate by sub-sequence number; a whole
   * Kinesis record (None) comes after all of its user records.
   */
  def compare(a: String, aSub: Option[Long], b: String, bSub: Option[Long]): Int = {
    val bySequence = compare(a, b)
    if (bySequence != 0) bySequence
    else
      (aSub, bSub) match {
        case (Some(x), Some(y)) => java.lang.Long.compare(x, y)
        case (Some(_), None) => -1
        case (None, Some(_)) => 1
        case (None, None) => 0
      }
  }
}
