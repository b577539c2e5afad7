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
