// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/** Where a shard iterator starts. */
private[sparkkinesis] sealed trait IteratorStart

private[sparkkinesis] object IteratorStart {
  case object TrimHorizon extends IteratorStart
  case object Latest extends IteratorStart
  final case class AtTimestamp(epochMillis: Long) extends IteratorStart
  final case class AtSequenceNumber(sequenceNumber: String) extends IteratorStart
  final case class AfterSequenceNumber(sequenceNumber: String) extends IteratorStart
}
