// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

/** Admission control: how much one micro-batch may take at most, in records and in record bytes. */
private[sparkkinesis] final case class TriggerLimits(maxRecords: Option[Long], maxBytes: Option[Long]) {
  def isEmpty: Boolean = maxRecords.isEmpty && maxBytes.isEmpty
}
