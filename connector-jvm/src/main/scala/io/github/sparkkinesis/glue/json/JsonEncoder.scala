// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.json

import com.fasterxml.jackson.core.util.ByteArrayBuilder
import com.fasterxml.jackson.core.JsonGenerator
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

/**
 * Writes rows of `struct` (Spark's internal rows) as the UTF-8 JSON text of a record of the JSON Schema
 * `schemaDefinition`: one JSON object each, written with Jackson's streaming generator (no tree is built),
 * its properties in the columns' order. [[JsonDecoder]] reads it back with the schema's
 * [[JsonSchemas.sqlType]].
 *
 * The constructor checks that the struct fits the schema, as [[JsonWriters]] describes: each column is a
 * property of the schema of its exact name with a type that fits the property's (the same, or one JSON
 * widens to it: an int as an integer, a decimal as a number, a date as a string, any type where the schema
 * takes any JSON value), and each property without a column allows null. The first that does not fails
 * with [[JsonSchemaException]]: `column order.items[].price: <what is wrong, and what to do>`. A nullable
 * column may feed a property that does not allow null; a null arriving there fails its record with
 * [[JsonEncodeException]], as does a NaN or infinite float or double.
 *
 * Runs on executors, one per task: not thread-safe (it reuses one generator and one output buffer).
 *
 * @throws JsonSchemaException when the schema has no Spark type, or the struct does not fit it
 */
private[sparkkinesis] final class JsonEncoder(schemaDefinition: String, struct: StructType) {

  private val write = JsonWriters.root(JsonSchemas.writerType(schemaDefinition), struct)
  private val bytes = new ByteArrayBuilder(256)

  /** Made on first use; dropped when a record fails halfway, which leaves it inside the record's objects. */
  private var out: JsonGenerator = null

  /**
   * The JSON text of `row`, a row of `struct` (not null), in UTF-8.
   *
   * @throws JsonEncodeException when a value cannot be written (a null where the schema has none, a NaN)
   */
  def encode(row: InternalRow): Array[Byte] = {
    bytes.reset()
    if (out == null) out = JsonWriters.Factory.createGenerator(bytes)
    var written = false
    try {
      write(out, row)
      out.flush()
      written = true
    } finally if (!written) out = null
    bytes.toByteArray
  }
}
