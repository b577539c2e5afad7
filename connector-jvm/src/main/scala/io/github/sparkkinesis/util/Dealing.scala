// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.util

/** Sharing items out, as cards are dealt. Stateless. */
private[sparkkinesis] object Dealing {

  /**
   * `items` dealt in turn to at most `hands` hands, the first item to the first hand, the next to the next:
   * hands differ by one item at most, and none is empty (so there are fewer hands than asked for when there
   * are fewer items). Each hand keeps the items' order.
   */
  def inTurn[T](items: IndexedSeq[T], hands: Int): IndexedSeq[IndexedSeq[T]] = {
    val count = math.min(items.size, math.max(1, hands))
    (0 until count).map(h => (h until items.size by count).map(items))
  }
}
