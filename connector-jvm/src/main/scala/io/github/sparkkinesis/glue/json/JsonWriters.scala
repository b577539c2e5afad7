// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.json

import java.time.{LocalDate, LocalDateTime, ZoneOffset}
import java.time.format.{DateTimeFormatter, DateTimeFormatterBuilder}
import java.util.Locale

import com.fasterxml.jackson.core.{JsonFactory, JsonFactoryBuilder, JsonGenerator, StreamWriteFeature}
import com.fasterxml.jackson.core.io.SerializedString
import io.github.sparkkinesis.glue.FieldPath
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

/**
 * Builds the tree of functions that writes Spark's internal values as JSON with Jackson's streaming
 * generator, checking once, while building, that each value's Spark type fits the type the JSON Schema has
 * where it is written ([[JsonSchemas.writerType]]):
 *  - a struct fits an object with properties when each column is a property of its exact name (JSON names
 *    are case-sensitive) whose type it fits, and each property without a column allows null; it is written
 *    with the columns' properties in the columns' order, then null for each nullable property that
 *    `required` lists and no column has (one that `required` does not list is left out);
 *  - a struct also fits an object without properties (a map): its columns are written as its entries, each
 *    fitting the map's values;
 *  - `integer` takes byte, short, int and long; `number` those and float, double and decimal; `string`
 *    strings, and dates, timestamps (with or without a time zone) and binary as the strings they are
 *    written as; `date` dates and `date-time` timestamps; arrays and maps (of string keys) take arrays and
 *    maps whose elements fit;
 *  - where the schema allows a value of any JSON type ([[JsonSchemas.AnyJson]]), a value of any type JSON
 *    has an equivalent for is written as its own type's JSON, as below.
 *
 * Each type's JSON: numbers as JSON numbers (decimals exactly, in plain notation), strings, booleans,
 * binary as a base64 string, dates as ISO-8601 days (`2026-11-28`), timestamps as ISO-8601 date-times in
 * UTC (`2026-11-28T01:02:03.456789Z`, the six digits of microseconds only when they are not zero),
 * timestamp_ntz alike without the `Z`, arrays as arrays, maps (of string keys only) and structs as objects.
 *
 * A nullable column may be written where the schema does not allow null: Spark makes most columns nullable
 * that never hold null. A null that does arrive there fails that record with [[JsonEncodeException]]
 * naming the column, as does a NaN or infinite float or double, which JSON has no number for.
 *
 * Runs on executors, built once per [[JsonEncoder]]. The functions hold no state: thread-safe as far as the
 * generator they are given is.
 */
private[json] object JsonWriters {

  /** Writes the value at `at` of `from`, a row's column or an array's element. */
  trait Write {
    def apply(out: JsonGenerator, from: SpecializedGetters, at: Int): Unit
  }

  /** Writes a whole row as an object. */
  trait WriteRow {
    def apply(out: JsonGenerator, row: InternalRow): Unit
  }

  /**
   * Thread-safe once configured. Values written one after the other have nothing between them (Jackson
   * would put a space); decimals are written in plain notation, as a person reads them.
   */
  val Factory: JsonFactory = new JsonFactoryBuilder()
    .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
    .rootValueSeparator(null: String)
    .build()

  /** The writer of rows of `struct` as values of `target`, or [[JsonSchemaException]] saying why not. */
  def root(target: DataType, struct: StructType): WriteRow = target match {
    case t: StructType => row(t, struct, FieldPath.Root)
    case MapType(_, value, valueContainsNull) => row(entries(struct, value, valueContainsNull), struct, FieldPath.Root)
    case JsonSchemas.AnyJson => row(entries(struct, JsonSchemas.AnyJson, nullable = true), struct, FieldPath.Root)
    case other =>
      throw new JsonSchemaException(
        s"The JSON Schema describes ${describe(other)}, not an object: a struct is written as a JSON object. " +
          "Write with a schema whose top level is an object.")
  }

  private def row(target: StructType, struct: StructType, path: String): WriteRow = {
    val properties = target.fields.map(p => p.name -> p).toMap
    struct.fields.foreach { f =>
      val fieldPath = FieldPath.field(path, f.name)
      if (struct.fields.count(_.name == f.name) > 1)
        throw mismatch(
          fieldPath,
          "the struct has two columns of that name, and a JSON object's properties need names of their own. " +
            "Rename or drop one of them.")
      if (!properties.contains(f.name)) {
        val sameButCase = target.fields.find(_.name.equalsIgnoreCase(f.name))
        throw mismatch(
          fieldPath,
          "the JSON Schema has no property of that name" +
            sameButCase.map(p => s" (JSON names are case-sensitive: it has ${p.name})").getOrElse("") +
            ". Drop or rename the column, or write with a schema version that has the property."
        )
      }
    }
    val writes = struct.fields.map { f =>
      val property = properties(f.name)
      value(property.dataType, property.nullable, f.dataType, f.nullable, FieldPath.field(path, f.name))
    }
    val names = struct.fields.map(f => new SerializedString(f.name))
    val absent = target.fields.filterNot(p => struct.fieldNames.contains(p.name))
    absent.find(!_.nullable).foreach { p =>
      throw mismatch(
        FieldPath.field(path, p.name),
        "the struct has no such column, and the JSON Schema requires the property and does not allow null. Add " +
          s"the column (of type ${hint(p.dataType)})."
      )
    }
    val nulls = absent.filter(JsonSchemas.isRequired).map(p => new SerializedString(p.name))
    (out, row) => {
      out.writeStartObject()
      var i = 0
      while (i < writes.length) {
        out.writeFieldName(names(i))
        writes(i)(out, row, i)
        i += 1
      }
      i = 0
      while (i < nulls.length) {
        out.writeFieldName(nulls(i))
        out.writeNull()
        i += 1
      }
      out.writeEndObject()
    }
  }

  /** An object whose properties are the columns of `struct`, each of `dataType`: a map's entries. */
  private def entries(struct: StructType, dataType: DataType, nullable: Boolean): StructType =
    StructType(struct.fields.map(f => StructField(f.name, dataType, nullable)))

  /** The writer of values of `dataType`, null unless not `nullable`, where the schema has `target`. */
  private def value(
      target: DataType,
      targetNullable: Boolean,
      dataType: DataType,
      nullable: Boolean,
      path: String): Write =
    if (dataType == NullType) {
      if (!targetNullable)
        throw mismatch(
          path,
          "a void column holds nothing but null, and the JSON Schema does not allow null there. Give it values " +
            s"(of type ${hint(target)}), or write with a schema version where the property allows null."
        )
      (out, _, _) => out.writeNull()
    } else {
      val write = nonNull(target, dataType, path)
      if (!nullable) write
      else if (targetNullable) (out, from, at) => if (from.isNullAt(at)) out.writeNull() else write(out, from, at)
      else
        (out, from, at) =>
          if (from.isNullAt(at))
            throw new JsonEncodeException(
              s"${FieldPath.column(path)}: null, and the JSON Schema does not allow null there. Replace the nulls " +
                "(coalesce), drop those rows, or write with a schema version where the property allows null.")
          else write(out, from, at)
    }

  private def nonNull(target: DataType, dataType: DataType, path: String): Write = (target, dataType) match {
    case (JsonSchemas.AnyJson, _) => ofOwnType(dataType, path)
    case (LongType, ByteType | ShortType | IntegerType | LongType) => atom(dataType, path)
    case (DoubleType, ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | _: DecimalType) =>
      atom(dataType, path)
    case (BooleanType, BooleanType) | (DateType, DateType) | (TimestampType, TimestampType) => atom(dataType, path)
    case (_: StringType, _: StringType | _: CharType | _: VarcharType) => atom(dataType, path)
    case (_: StringType, DateType | TimestampType | TimestampNTZType | BinaryType) => atom(dataType, path)
    case (ArrayType(element, elementNullable), ArrayType(e, containsNull)) =>
      array(value(element, elementNullable, e, containsNull, FieldPath.element(path)))
    case (MapType(_, v, vNullable), MapType(keyType, valueType, valueContainsNull)) =>
      map(keyType, value(v, vNullable, valueType, valueContainsNull, FieldPath.value(path)), path)
    case (t: StructType, s: StructType) => nested(row(t, s, path), s.length)
    case (MapType(_, v, vNullable), s: StructType) => nested(row(entries(s, v, vNullable), s, path), s.length)
    case _ =>
      throw mismatch(
        path,
        s"a ${dataType.simpleString} column cannot be written where the JSON Schema has ${describe(target)}. " +
          s"Cast it to ${hint(target)}.")
  }

  /** The writer of a value of `dataType` as its own type's JSON, where the schema takes any JSON value. */
  private def ofOwnType(dataType: DataType, path: String): Write = dataType match {
    case ArrayType(e, containsNull) =>
      array(value(JsonSchemas.AnyJson, targetNullable = true, e, containsNull, FieldPath.element(path)))
    case MapType(keyType, valueType, valueContainsNull) =>
      val write = value(JsonSchemas.AnyJson, targetNullable = true, valueType, valueContainsNull, FieldPath.value(path))
      map(keyType, write, path)
    case s: StructType => nested(row(entries(s, JsonSchemas.AnyJson, nullable = true), s, path), s.length)
    case _ => atom(dataType, path)
  }

  /** The writer of a value of a type that is not nested. */
  private def atom(dataType: DataType, path: String): Write = dataType match {
    case BooleanType => (out, from, at) => out.writeBoolean(from.getBoolean(at))
    case ByteType => (out, from, at) => out.writeNumber(from.getByte(at).toInt)
    case ShortType => (out, from, at) => out.writeNumber(from.getShort(at).toInt)
    case IntegerType => (out, from, at) => out.writeNumber(from.getInt(at))
    case LongType => (out, from, at) => out.writeNumber(from.getLong(at))
    case FloatType =>
      (out, from, at) => {
        val f = from.getFloat(at)
        if (f.isNaN || f.isInfinite) throw notFinite(path)
        out.writeNumber(f)
      }
    case DoubleType =>
      (out, from, at) => {
        val d = from.getDouble(at)
        if (d.isNaN || d.isInfinite) throw notFinite(path)
        out.writeNumber(d)
      }
    case d: DecimalType =>
      (out, from, at) => out.writeNumber(from.getDecimal(at, d.precision, d.scale).toJavaBigDecimal)
    case _: StringType | _: CharType | _: VarcharType =>
      (out, from, at) => out.writeString(from.getUTF8String(at).toString)
    case BinaryType => (out, from, at) => out.writeBinary(from.getBinary(at))
    case DateType => (out, from, at) => out.writeString(LocalDate.ofEpochDay(from.getInt(at).toLong).toString)
    case TimestampType => (out, from, at) => out.writeString(dateTime(from.getLong(at), utc = true))
    case TimestampNTZType => (out, from, at) => out.writeString(dateTime(from.getLong(at), utc = false))
    case other =>
      throw mismatch(
        path,
        s"Spark type ${other.simpleString} has no JSON equivalent. Cast it to one that has (a string, a number, " +
          "a boolean, a date, a timestamp, binary, or a struct, array or map of these)."
      )
  }

  private def array(element: Write): Write = (out, from, at) => {
    val array = from.getArray(at)
    val n = array.numElements()
    out.writeStartArray()
    var i = 0
    while (i < n) {
      element(out, array, i)
      i += 1
    }
    out.writeEndArray()
  }

  private def map(keyType: DataType, value: Write, path: String): Write = keyType match {
    case _: StringType | _: CharType | _: VarcharType =>
      (out, from, at) => {
        val map = from.getMap(at)
        val keys = map.keyArray()
        val values = map.valueArray()
        val n = map.numElements()
        out.writeStartObject()
        var i = 0
        while (i < n) {
          out.writeFieldName(keys.getUTF8String(i).toString)
          value(out, values, i)
          i += 1
        }
        out.writeEndObject()
      }
    case other =>
      throw mismatch(
        path,
        s"the map's keys are ${other.simpleString}, and JSON objects have string keys only. Cast the keys to " +
          "strings (transform_keys), or make the map an array of structs."
      )
  }

  private def nested(write: WriteRow, fields: Int): Write = (out, from, at) => write(out, from.getStruct(at, fields))

  private val Seconds: DateTimeFormatter = new DateTimeFormatterBuilder()
    .append(DateTimeFormatter.ISO_LOCAL_DATE)
    .appendLiteral('T')
    .appendPattern("HH:mm:ss")
    .toFormatter(Locale.ROOT)

  /**
   * ISO-8601 text of a timestamp in microseconds since the epoch: `2026-11-28T01:02:03`, then `.` and six
   * digits when the microseconds are not zero, then `Z` when `utc`.
   */
  private[json] def dateTime(micros: Long, utc: Boolean): String = {
    val text = new java.lang.StringBuilder(32)
    Seconds.formatTo(LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1000000L), 0, ZoneOffset.UTC), text)
    val fraction = Math.floorMod(micros, 1000000L)
    if (fraction != 0) {
      val digits = java.lang.Long.toString(fraction)
      text.append('.')
      var pad = 6 - digits.length
      while (pad > 0) {
        text.append('0')
        pad -= 1
      }
      text.append(digits)
    }
    if (utc) text.append('Z')
    text.toString
  }

  private def notFinite(path: String): JsonEncodeException =
    new JsonEncodeException(
      s"${FieldPath.column(path)}: a NaN or infinite number, which JSON has none of. Replace it (nanvl, or " +
        "when/otherwise with null where the property allows null), or drop those rows.")

  /** The JSON Schema's type as messages name it. */
  private def describe(target: DataType): String = target match {
    case JsonSchemas.AnyJson => "a value of any JSON type"
    case LongType => "an integer"
    case DoubleType => "a number"
    case BooleanType => "a boolean"
    case DateType => "a string of format date"
    case TimestampType => "a string of format date-time"
    case _: StringType => "a string"
    case _: ArrayType => "an array"
    case _: MapType => "an object without properties"
    case _: StructType => "an object with properties"
    case other => other.simpleString
  }

  /** The Spark type to cast to, to write where the schema has `target`. */
  private def hint(target: DataType): String =
    if (target == JsonSchemas.AnyJson) "any type" else JsonSchemas.erased(target).simpleString

  private def mismatch(path: String, what: String): JsonSchemaException =
    new JsonSchemaException(s"${FieldPath.column(path)}: $what")
}
