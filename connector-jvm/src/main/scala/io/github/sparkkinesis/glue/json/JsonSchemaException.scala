// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.json

/**
 * A JSON Schema that has no Spark type: a construct Spark cannot represent (a recursive `$ref`, a tuple
 * array), a `$ref` outside the document, or parts of an `allOf` that contradict each other. Thrown on the
 * driver when the reader schema is mapped, before any record is read. The message names the place in the
 * schema document as a path of its keywords (`properties.items.items.properties.price`) and says what the
 * user can do; the Glue functions wrap it into the connector's error conditions, as they wrap Avro's.
 *
 * Also a struct that cannot be written with a JSON Schema (a column the schema lacks or of a type that does
 * not fit, a required property without a column), or that has no JSON Schema (a map of other than string
 * keys): thrown when the [[JsonEncoder]] or the schema is built, before any row is written. The message then
 * names the column (`column order.items[].price`, see [[io.github.sparkkinesis.glue.FieldPath]]).
 */
private[sparkkinesis] final class JsonSchemaException(message: String, cause: Throwable)
    extends IllegalArgumentException(message, cause) {
  def this(message: String) = this(message, null)
}

/**
 * A record's payload that is no JSON value of the reader schema's type: malformed or truncated JSON, text
 * after the value, a property of another JSON type than the schema's, a required property missing or null,
 * an integer out of the range of a long, nesting deeper than [[JsonDecoder.MaxDepth]]. The message names
 * the field (`order.items[].price`) and the kind of JSON token found, never the record's data.
 */
private[sparkkinesis] final class JsonDecodeException(message: String, cause: Throwable)
    extends IllegalArgumentException(message, cause) {
  def this(message: String) = this(message, null)
}

/**
 * A row that the JSON Schema cannot hold, though its struct fits: a null where the schema does not allow
 * null, a NaN or infinite float or double, which JSON has no number for. The message names the column
 * (`column order.items[].price`), never the row's data.
 */
private[sparkkinesis] final class JsonEncodeException(message: String) extends IllegalArgumentException(message)
