// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

/**
 * How the messages of the Avro, JSON and Protobuf converters name a place in a nested value: field names joined by
 * dots, `[]` for an array's elements and `{}` for a map's values, an Avro union's branches by the names of
 * the struct Spark gives them (`member0`, ...). For example `order.items[].price`, `order.tags{}`,
 * `event.payload.member1`.
 * The root is the empty path. Paths are built once, when a converter is built, never per record.
 *
 * Stateless and thread-safe.
 */
private[glue] object FieldPath {

  val Root: String = ""

  def field(parent: String, name: String): String = if (parent.isEmpty) name else s"$parent.$name"

  def element(parent: String): String = s"$parent[]"

  def value(parent: String): String = s"$parent{}"

  /** A column of a struct as messages name it: `column order.items[].price`, or `the struct` at the root. */
  def column(path: String): String = if (path.isEmpty) "the struct" else s"column $path"

  /** A field of an Avro value as messages name it: `Avro field order.price`, or `the Avro value` at the root. */
  def avroField(path: String): String = if (path.isEmpty) "the Avro value" else s"Avro field $path"
}
