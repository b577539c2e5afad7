// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import org.scalatest.{BeforeAndAfterEach, Suite}

/** Stops the streams of a test's [[StreamFixture]]s after it, whatever the test stopped itself. */
trait StopsFixtureStreams extends BeforeAndAfterEach { self: Suite =>
  override def afterEach(): Unit =
    try super.afterEach()
    finally StreamFixture.stopAll()
}
