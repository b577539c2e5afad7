// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.util

/** Time as the connector sees it; tests substitute a manual clock. Thread-safe. */
private[sparkkinesis] trait Clock extends Serializable {
  def nowMillis(): Long
  def sleep(millis: Long): Unit
}

private[sparkkinesis] object SystemClock extends Clock {
  override def nowMillis(): Long = System.currentTimeMillis()
  override def sleep(millis: Long): Unit = if (millis > 0) Thread.sleep(millis)
}
