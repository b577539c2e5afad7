// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.json

import java.io.StringWriter

import com.fasterxml.jackson.core.{
  JsonFactory,
  JsonFactoryBuilder,
  JsonParser,
  JsonProcessingException,
  JsonToken,
  StreamReadConstraints,
  StreamReadFeature
}
import com.fasterxml.jackson.core.io.JsonEOFException
import org.apache.spark.sql.types._

/**
 * Reads the UTF-8 JSON text of one record into Spark's internal values of `dataType`, a type that
 * [[JsonSchemas.sqlType]] gives (an InternalRow for a struct, as the registry's schemas are), with Jackson's
 * streaming parser: no tree is built. The schema's evolution is resolved by name, as JSON schemas evolve:
 * a property the reader's struct lacks (a newer writer's) is skipped, one it has that the record lacks is
 * null. Nothing is validated against the writer's schema.
 *
 * Each value must have the JSON type of its Spark type, with two leniencies: a string takes a value of any
 * JSON type, a non-string as its JSON text (as Spark's `from_json` does; that is how [[JsonSchemas]] types
 * values of several JSON types), and a long takes a number written with a fraction of zero (`3.0`, an
 * integer for JSON Schema). Dates are ISO-8601 days (`2026-11-28`), timestamps ISO-8601 with an offset
 * (`2026-11-28T01:02:03.456Z`), as JSON Schema's `date` and `date-time` formats are.
 *
 * Fails with [[JsonDecodeException]], naming the field and what was found there (never the record's data),
 * for malformed or truncated JSON, text after the value, a value of another type, a null or missing value
 * where the type allows none, an integer out of the range of a long, and nesting deeper than
 * [[JsonDecoder.MaxDepth]] (bounded by Jackson's read constraints, also while skipping unknown properties).
 * Its message carries what Jackson says, and no cause: the connector's errors show the innermost cause's
 * message, and Jackson's would lose the field and the record's size.
 *
 * The reading is built once, as a tree of functions for `dataType`. Runs on executors, one per task: not
 * thread-safe.
 *
 * @throws JsonSchemaException when `dataType` has a type JSON is not read into
 */
private[sparkkinesis] final class JsonDecoder(dataType: DataType) {
  import JsonDecoder._

  private val read: Reader = JsonReaders.of(dataType, nullable = false, "")

  /**
   * The value of the JSON text in `length` bytes of `bytes` from `offset`.
   *
   * @throws JsonDecodeException when they are no JSON value of `dataType`
   */
  def decode(bytes: Array[Byte], offset: Int, length: Int): Any = {
    val parser = Factory.createParser(bytes, offset, length)
    try {
      if (parser.nextToken() == null) throw new JsonDecodeException(s"A record of $length bytes has no JSON value.")
      val value = read(parser)
      val after = parser.nextToken()
      if (after != null)
        throw new JsonDecodeException(
          s"A record of $length bytes has ${JsonReaders.describe(after)} after its JSON value: write one value " +
            "per record.")
      value
    } catch {
      case e: JsonReaders.Mismatch =>
        throw new JsonDecodeException(s"A record of $length bytes is no value of the reader schema: ${e.getMessage}.")
      case e: JsonEOFException =>
        throw new JsonDecodeException(s"A record of $length bytes ends within its JSON value (truncated).")
      case e: JsonProcessingException =>
        val location = Option(e.getLocation).map(l => s" at line ${l.getLineNr}, column ${l.getColumnNr}").getOrElse("")
        throw new JsonDecodeException(
          s"A record of $length bytes is no valid JSON$location: ${e.getOriginalMessage}. The record is truncated " +
            "or corrupt, or not JSON.")
      case e: java.io.CharConversionException =>
        throw new JsonDecodeException(s"A record of $length bytes is no valid UTF-8 JSON: ${e.getMessage}.")
    } finally parser.close()
  }
}

private[sparkkinesis] object JsonDecoder {

  /** How deep objects and arrays may nest in a record. */
  val MaxDepth: Int = 1000

  /** Reads the value at the parser's current token, leaving the parser on the value's last token. */
  private[json] type Reader = JsonParser => Any

  /** Thread-safe once configured. Source text is kept out of Jackson's messages: it is the user's data. */
  private[json] val Factory: JsonFactory = new JsonFactoryBuilder()
    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MaxDepth).build())
    .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
    .build()

  /** The JSON text of the value at the parser's current token, left on its last token. */
  private[json] def jsonText(parser: JsonParser): String =
    if (parser.currentToken == JsonToken.VALUE_STRING) parser.getText
    else {
      val out = new StringWriter()
      val generator = Factory.createGenerator(out)
      try generator.copyCurrentStructure(parser)
      finally generator.close()
      out.toString
    }
}
