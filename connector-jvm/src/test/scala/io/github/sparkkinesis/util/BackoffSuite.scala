// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.util

import io.github.sparkkinesis.testing.ManualClock
import org.scalatest.funsuite.AnyFunSuite

class BackoffSuite extends AnyFunSuite {

  test("the pause doubles with each failure in a row, from the least to the most") {
    assert((1 to 6).map(Backoff.pauseAfter(_, 100, 2000)) == Seq(100, 200, 400, 800, 1600, 2000))
    assert(Backoff.pauseAfter(1000, 100, 2000) == 2000, "no overflow after many failures")
  }

  test("a backoff sleeps between half the pause and the pause, and starts over after a reset") {
    val clock = new ManualClock()
    val backoff = new Backoff(100, 2000, clock)
    val slept = (1 to 6).map { n =>
      val before = clock.slept
      backoff.sleep()
      clock.slept - before -> Backoff.pauseAfter(n, 100, 2000)
    }
    slept.foreach { case (sleep, pause) => assert(sleep >= pause / 2 && sleep <= pause, slept) }
    backoff.reset()
    val before = clock.slept
    backoff.sleep()
    assert(clock.slept - before <= 100)
  }

  test("a jittered pause lies between half the pause and the pause, both ends reached") {
    assert(Backoff.jittered(5000, random = 0.0) == 2500)
    assert(Backoff.jittered(5000, random = 0.9999999) == 5000)
    assert(Backoff.jittered(5001, random = 0.9999999) == 5001)
    val drawn = (1 to 1000).map(_ => Backoff.jittered(5000))
    assert(drawn.forall(p => p >= 2500 && p <= 5000))
    assert(drawn.distinct.size > 100, "readers throttled together come back at different instants")
  }
}
