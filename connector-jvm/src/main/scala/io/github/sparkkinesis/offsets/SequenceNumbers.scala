// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

/** Kinesis sequence numbers are decimal strings of up to 128 bits; they order numerically, not as text. */
private[sparkkinesis] object SequenceNumbers {

  /**
   * Whether `text` is a decimal number as Kinesis writes them: ASCII digits only (Java's own digit test also
   * takes other scripts' digits, which Kinesis never gives and refuses).
   */
  def isDecimal(text: String): Boolean = text.nonEmpty && text.forall(c => c >= '0' && c <= '9')

  def compare(a: String, b: String): Int =
    if (a.length != b.length) Integer.compare(a.length, b.length) else a.compareTo(b)

  /**
   * Orders user records: by sequence number, then within a KPL aggregate by sub-sequence number; a whole
   * Kinesis record (None) comes after all of its user records.
   */
  def compare(a: String, aSub: Option[Long], b: String, bSub: Option[Long]): Int = {
    val bySequence = compare(a, b)
    if (bySequence != 0) bySequence else compareSubs(aSub.getOrElse(-1L), bSub)
  }

  /**
   * As above, for a sequence number held as ASCII digits in `a` from `at` for `length` bytes, and a
   * sub-sequence number of -1 for a whole Kinesis record: compared where it lies, without a String.
   */
  def compare(a: Array[Byte], at: Int, length: Int, aSub: Long, b: String, bSub: Option[Long]): Int = {
    val bySequence = compare(a, at, length, b)
    if (bySequence != 0) bySequence else compareSubs(aSub, bSub)
  }

  /** A sequence number held as ASCII digits in `a` from `at` for `length` bytes against another. */
  def compare(a: Array[Byte], at: Int, length: Int, b: String): Int = {
    var bySequence = Integer.compare(length, b.length)
    var i = 0
    while (bySequence == 0 && i < length) {
      bySequence = Integer.compare(a(at + i).toChar, b.charAt(i))
      i += 1
    }
    bySequence
  }

  /** A sub-sequence number (-1: a whole record) against another. */
  private def compareSubs(aSub: Long, bSub: Option[Long]): Int = (aSub >= 0, bSub) match {
    case (true, Some(y)) => java.lang.Long.compare(aSub, y)
    case (true, None) => -1
    case (false, Some(_)) => 1
    case (false, None) => 0
  }
}
