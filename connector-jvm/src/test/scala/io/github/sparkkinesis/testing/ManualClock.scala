// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import io.github.sparkkinesis.util.Clock

/** A clock that moves only when told to, or when code under test sleeps on it. */
final class ManualClock(start: Long = 1700000000000L) extends Clock {
  @volatile private var now = start
  @volatile var slept: Long = 0L

  override def nowMillis(): Long = now
  override def sleep(millis: Long): Unit = synchronized {
    slept += millis
    now += millis
  }
  def advance(millis: Long): Unit = synchronized { now += millis }
}
