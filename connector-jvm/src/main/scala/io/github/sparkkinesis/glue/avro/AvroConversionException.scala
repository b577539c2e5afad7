// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

/**
 * An Avro schema and a Spark type that do not fit each other: a schema Spark cannot represent (a recursive
 * record), a struct that cannot be written with a schema (a column of the wrong type, a column the schema
 * lacks), or a struct that has no Avro schema (a column name Avro does not allow). Thrown when a converter is
 * built, before any record is read or written. The message names the place as a field path (`order`,
 * `order.items[].price`, see [[io.github.sparkkinesis.glue.FieldPath]]) and says what the user can do; the
 * Glue functions wrap it into the connector's error conditions.
 *
 * Its subclasses are the failures of one record: [[AvroDecodeException]] and [[AvroEncodeException]].
 */
private[sparkkinesis] class AvroConversionException(message: String, cause: Throwable)
    extends IllegalArgumentException(message, cause) {
  def this(message: String) = this(message, null)
}

/**
 * A record's bytes that are no Avro datum of the writer schema (truncated, corrupt, or written with another
 * schema than the one named for it), or a datum the reader schema cannot take by Avro's resolution rules
 * (an enum symbol the reader lacks, a union branch it has no match for). The message says which, and the
 * field being read when it failed.
 */
private[sparkkinesis] final class AvroDecodeException(message: String, cause: Throwable)
    extends AvroConversionException(message, cause)

/**
 * A row that the Avro schema cannot hold, though its type fits: a null in a field that is not nullable, a
 * string that is no symbol of its enum, binary of the wrong length for a fixed, a value out of range. The
 * message names the column.
 */
private[sparkkinesis] final class AvroEncodeException(message: String) extends AvroConversionException(message)
