// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

/**
 * A Protobuf schema (the `.proto` file text the registry stores for a version) that cannot be read as a
 * Spark type: text that is no `.proto` file, a construct this connector does not read (a `group`, an import
 * other than the well-known types it knows, editions), a type name that names nothing, a recursive message.
 * Thrown on the driver when the reader schema is parsed and mapped, before any record is read. The message
 * names the place, as `line:column` of the text or as a field path (`Order.items[].price`), and says what
 * the user can do; the Glue functions wrap it into the connector's error conditions, as they wrap Avro's
 * and JSON Schema's.
 *
 * Also a struct that cannot be written as a message of the file (a column the message lacks or of a type
 * that does not fit its field, a required field without a column), or that has no Protobuf message (a
 * decimal, an array of arrays): thrown when the [[ProtoEncoder]] or the `.proto` text of the struct is
 * built, before any row is written. The message then names the column (`column order.items[].price`, see
 * [[io.github.sparkkinesis.glue.FieldPath]]).
 */
private[sparkkinesis] final class ProtoSchemaException(message: String, cause: Throwable)
    extends IllegalArgumentException(message, cause) {
  def this(message: String) = this(message, null)
}

/**
 * A record's payload that is no Protobuf message of the reader's type: a message index that names another
 * message, a length or varint running past the record's end, a wire type that does not exist, an end-group
 * without its start, nesting deeper than [[ProtoDecoder.MaxDepth]], a string that is no UTF-8, a timestamp
 * out of Spark's range. The message names the field path being read and what was wrong, never the record's
 * data.
 */
private[sparkkinesis] final class ProtoDecodeException(message: String, cause: Throwable)
    extends IllegalArgumentException(message, cause) {
  def this(message: String) = this(message, null)
}

/**
 * A row that the message cannot hold, though its struct fits: a null in a required field, a null element
 * of an array or value of a map (Protobuf's repeated fields and maps hold no null), a string naming no value
 * of its enum, two members of one oneof set, a proto3 string that is no UTF-8. The message names the column
 * (`column order.items[].price`), never the row's data.
 */
private[sparkkinesis] final class ProtoEncodeException(message: String) extends IllegalArgumentException(message)
