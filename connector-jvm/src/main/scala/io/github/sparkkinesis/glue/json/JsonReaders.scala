// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.json

import java.time.{LocalDate, OffsetDateTime}
import java.time.format.{DateTimeFormatter, DateTimeParseException}

import com.fasterxml.jackson.core.{JsonParser, JsonToken}
import com.fasterxml.jackson.core.JsonParser.NumberType
import io.github.sparkkinesis.glue.FieldPath
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * The readers [[JsonDecoder]] is built of: one function per node of the Spark type, each reading the value
 * at the parser's current token into Spark's internal value and leaving the parser on the value's last
 * token. Field paths (`order.items[].price`) are built with the functions, never per record.
 *
 * Stateless and thread-safe; the functions it builds are too (each record has its own parser).
 */
private[json] object JsonReaders {
  import JsonDecoder.Reader

  /** A value that does not fit the reader's type; [[JsonDecoder]] adds the record. Its message names the field. */
  final class Mismatch(message: String) extends RuntimeException(message, null, false, false)

  /** A JSON token as messages name it: its kind, not its text. */
  def describe(token: JsonToken): String = token match {
    case JsonToken.START_OBJECT => "an object"
    case JsonToken.START_ARRAY => "an array"
    case JsonToken.VALUE_STRING => "a string"
    case JsonToken.VALUE_NUMBER_INT => "an integer"
    case JsonToken.VALUE_NUMBER_FLOAT => "a number with a fraction or exponent"
    case JsonToken.VALUE_TRUE | JsonToken.VALUE_FALSE => "a boolean"
    case JsonToken.VALUE_NULL => "null"
    case other => s"the token $other"
  }

  /** The reader of values of `dataType` at `path`, which takes JSON null unless the type is not `nullable`. */
  def of(dataType: DataType, nullable: Boolean, path: String): Reader = {
    val value = nonNull(dataType, path)
    parser =>
      if (parser.currentToken == JsonToken.VALUE_NULL) {
        if (!nullable) throw new Mismatch(s"${field(path)} is null, which the schema does not allow there")
        null
      } else value(parser)
  }

  private def nonNull(dataType: DataType, path: String): Reader = dataType match {
    case StringType => parser => UTF8String.fromString(JsonDecoder.jsonText(parser))
    case LongType => long(path)
    case DoubleType =>
      parser =>
        expect(parser, path, "a number", JsonToken.VALUE_NUMBER_INT, JsonToken.VALUE_NUMBER_FLOAT)
        val d = parser.getDoubleValue
        if (d.isInfinite) throw new Mismatch(s"${field(path)} is a number out of the range of a double")
        d
    case BooleanType =>
      parser =>
        expect(parser, path, "a boolean", JsonToken.VALUE_TRUE, JsonToken.VALUE_FALSE)
        parser.currentToken == JsonToken.VALUE_TRUE
    case DateType =>
      text(path, "a date (yyyy-mm-dd)", s => Math.toIntExact(LocalDate.parse(s).toEpochDay))
    case TimestampType =>
      text(
        path,
        "a date-time with an offset (2026-11-28T01:02:03Z)",
        s => {
          val instant = OffsetDateTime.parse(s, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant
          val (seconds, micros) = (instant.getEpochSecond, instant.getNano / 1000L)
          // Before 1970, from the second after: the earliest microsecond a timestamp holds overflows on the way.
          if (seconds >= 0) Math.addExact(Math.multiplyExact(seconds, 1000000L), micros)
          else Math.addExact(Math.multiplyExact(seconds + 1, 1000000L), micros - 1000000L)
        }
      )
    case ArrayType(element, containsNull) => array(of(element, containsNull, FieldPath.element(path)), path)
    case MapType(StringType, valueType, valueContainsNull) =>
      map(of(valueType, valueContainsNull, FieldPath.value(path)), path)
    case struct: StructType => row(struct, path)
    case other =>
      throw new JsonSchemaException(
        s"JSON is not read into ${other.simpleString} (${field(path)}): read it as JsonSchemas.sqlType gives it.")
  }

  private def long(path: String): Reader = parser => {
    expect(parser, path, "an integer", JsonToken.VALUE_NUMBER_INT, JsonToken.VALUE_NUMBER_FLOAT)
    if (parser.currentToken == JsonToken.VALUE_NUMBER_INT) {
      if (parser.getNumberType == NumberType.BIG_INTEGER)
        throw new Mismatch(s"${field(path)} is an integer out of the range of a long")
      parser.getLongValue
    } else {
      val decimal = parser.getDecimalValue
      try decimal.longValueExact()
      catch {
        case _: ArithmeticException =>
          throw new Mismatch(s"${field(path)} is a number that is no integer in the range of a long")
      }
    }
  }

  private def text(path: String, what: String, parse: String => Any): Reader = parser => {
    expect(parser, path, what, JsonToken.VALUE_STRING)
    try parse(parser.getText)
    catch {
      case _: DateTimeParseException | _: ArithmeticException =>
        throw new Mismatch(s"${field(path)} is a string that is not $what")
    }
  }

  private def array(element: Reader, path: String): Reader = parser => {
    expect(parser, path, "an array", JsonToken.START_ARRAY)
    val values = new java.util.ArrayList[Any]()
    while (parser.nextToken() != JsonToken.END_ARRAY) values.add(element(parser))
    new GenericArrayData(values.toArray)
  }

  private def map(value: Reader, path: String): Reader = parser => {
    expect(parser, path, "an object", JsonToken.START_OBJECT)
    // A key given twice keeps its last value, as in a struct.
    val entries = new java.util.LinkedHashMap[UTF8String, Any]()
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      val key = UTF8String.fromString(parser.currentName)
      parser.nextToken()
      entries.put(key, value(parser))
    }
    new ArrayBasedMapData(new GenericArrayData(entries.keySet.toArray), new GenericArrayData(entries.values.toArray))
  }

  private def row(struct: StructType, path: String): Reader = {
    val fields = struct.fields
    val paths = fields.map(f => FieldPath.field(path, f.name))
    val readers = fields.indices.map(i => of(fields(i).dataType, fields(i).nullable, paths(i))).toArray
    val index = new java.util.HashMap[String, Integer]()
    fields.indices.foreach(i => index.put(fields(i).name, i))
    val required = fields.indices.filterNot(fields(_).nullable).toArray
    parser => {
      expect(parser, path, "an object", JsonToken.START_OBJECT)
      val values = new Array[Any](fields.length)
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        val i = index.get(parser.currentName)
        parser.nextToken()
        if (i == null) parser.skipChildren() // a property the reader lacks: a newer writer's
        else values(i) = readers(i)(parser)
      }
      required.foreach { i =>
        if (values(i) == null)
          throw new Mismatch(s"${field(paths(i))} is missing, which the schema requires and does not allow null")
      }
      new GenericInternalRow(values)
    }
  }

  private def expect(parser: JsonParser, path: String, what: String, token: JsonToken): Unit =
    expect(parser, path, what, token, token)

  /** Checks the current token is `one` or `other` (no varargs: this runs for every value). */
  private def expect(parser: JsonParser, path: String, what: String, one: JsonToken, other: JsonToken): Unit = {
    val token = parser.currentToken
    if (token != one && token != other)
      throw new Mismatch(s"${field(path)} is ${describe(token)}, where $what is expected")
  }

  private def field(path: String): String = if (path.isEmpty) "the value" else s"the field $path"
}
