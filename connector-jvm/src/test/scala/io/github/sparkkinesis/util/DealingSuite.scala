// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.util

import org.scalatest.funsuite.AnyFunSuite

class DealingSuite extends AnyFunSuite {
  test("items are dealt in turn: hands differ by one at most, none empty, each in the items' order") {
    assert(Dealing.inTurn(Vector("a", "b", "c"), hands = 4) == Seq(Seq("a"), Seq("b"), Seq("c")))
    assert(Dealing.inTurn(1 to 5, hands = 2) == Seq(Seq(1, 3, 5), Seq(2, 4)))
    assert(Dealing.inTurn(Vector.empty[Int], hands = 2).isEmpty, "no hand without an item")
    assert(Dealing.inTurn(1 to 3, hands = 0) == Seq(Seq(1, 2, 3)), "at least one hand")
  }
}
