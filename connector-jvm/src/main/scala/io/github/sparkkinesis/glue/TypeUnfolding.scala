// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.Locale

import scala.collection.mutable

/**
 * The bound on the size of the Spark type a registry schema unfolds into.
 *
 * A schema defines a type once and may use it at many places: an Avro named record, a JSON Schema definition
 * under `$ref`, a Protobuf message. Spark's type repeats the type in full at each place, so a schema of a few
 * kilobytes whose types each use the next one twice unfolds into 2^depth fields: building that type, or a
 * reader of it, would not end. Each format counts the unfolded size of its schema first, every shared type
 * once, and refuses a schema over [[MaxNodes]] with [[refusal]].
 */
private[glue] object TypeUnfolding {

  /**
   * The most nodes (fields, elements, map values and the scalars at the leaves) a schema's Spark type may have:
   * far more than any record type written by hand, few enough to build and read in a moment.
   */
  val MaxNodes: Long = 100000L

  /**
   * The number of nodes the tree from `root` unfolds into, up to `MaxNodes + 1` (the count stops there).
   * `children` gives a node's children; `shared` names a node that may be used at several places (a record's
   * full name, a JSON pointer), which is counted once, its size reused at each further place. A node found
   * inside itself counts as one: the format refuses the recursion in its own words.
   */
  def size[N](root: N)(shared: N => Option[String], children: N => Iterable[N]): Long = {
    val known = mutable.HashMap.empty[String, Long]
    val open = mutable.HashSet.empty[String]
    def count(node: N): Long = shared(node) match {
      case None => unfolded(node)
      case Some(name) =>
        known.get(name) match {
          case Some(n) => n
          case None if open(name) => 1L
          case None =>
            open += name
            val n = unfolded(node)
            open -= name
            known(name) = n
            n
        }
    }
    def unfolded(node: N): Long =
      children(node).foldLeft(1L)((sum, child) => math.min(sum + count(child), MaxNodes + 1))
    count(root)
  }

  /** Whether a schema of `nodes` (from [[size]]) is over the bound. */
  def tooLarge(nodes: Long): Boolean = nodes > MaxNodes

  /** The words of the refusal of `schema` (as "The Avro schema"), whose type is over the bound. */
  def refusal(schema: String, sharedTypes: String): String =
    s"$schema unfolds into a Spark type of more than ${"%,d".formatLocal(Locale.ROOT, MaxNodes)} fields and " +
      s"values, as its $sharedTypes are " +
      "repeated in full at every place they are used. Register a schema whose types nest fewer times, or one " +
      "that keeps the deeper parts as bytes or JSON text."
}
