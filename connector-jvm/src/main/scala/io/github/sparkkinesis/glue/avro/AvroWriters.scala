// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import java.io.ByteArrayOutputStream

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import io.github.sparkkinesis.glue.FieldPath
import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.generic.{GenericData, GenericDatumWriter}
import org.apache.avro.io.{Encoder, EncoderFactory}
import org.apache.avro.util.Utf8
import org.apache.avro.Schema.Type
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

/**
 * Builds the tree of functions that writes Spark's internal values as an Avro datum of a schema, checking
 * once, while building, that each value's Spark type fits its Avro type:
 *  - a struct fits a record when each column has an Avro field of its exact name (Avro names are
 *    case-sensitive) whose type it fits, and each Avro field without a column has a default, which is
 *    written;
 *  - a column fits its Avro type as [[AvroSchemas.sqlType]] maps them, and also when it is narrower (byte and
 *    short as int; byte, short and int as long; float as double; a decimal whose digits before and after the
 *    point all fit the Avro decimal's);
 *  - a union takes what [[AvroUnionWriters]] says.
 * A nullable column may be written to an Avro type that is not: Spark makes most columns nullable that never
 * hold null. A null that does arrive there fails that record ([[AvroEncodeException]] naming the column).
 *
 * Runs on executors, built once per [[AvroEncoder]]. The functions hold no state: thread-safe as far as the
 * encoder they are given is.
 */
private[avro] object AvroWriters {

  /** Writes the value at `at` of `from`, a row's column or an array's element. */
  trait Write {
    def apply(out: Encoder, from: SpecializedGetters, at: Int): Unit
  }

  /** Writes a whole row as a record. */
  trait WriteRow {
    def apply(out: Encoder, row: InternalRow): Unit
  }

  /** The writer of rows of `struct` as the record `schema`, or [[AvroConversionException]] saying why not. */
  def record(schema: Schema, struct: StructType, path: String): WriteRow = {
    val columns = struct.fields.zipWithIndex.map { case (f, i) => f.name -> i }.toMap
    struct.fields.foreach { f =>
      val fieldPath = FieldPath.field(path, f.name)
      if (struct.fields.count(_.name == f.name) > 1)
        throw mismatch(fieldPath, "the struct has two columns of that name. Rename or drop one of them.")
      if (schema.getField(f.name) == null) {
        val sameButCase = schema.getFields.asScala.find(_.name.equalsIgnoreCase(f.name))
        throw mismatch(
          fieldPath,
          s"the Avro record ${schema.getFullName} has no field of that name" +
            sameButCase.map(a => s" (Avro names are case-sensitive: it has ${a.name})").getOrElse("") +
            ". Drop or rename the column, or write with a schema version that has the field."
        )
      }
    }
    val writes = schema.getFields.asScala.toArray.map { field =>
      val fieldPath = FieldPath.field(path, field.name)
      columns.get(field.name) match {
        case Some(i) =>
          val column = struct.fields(i)
          val write = value(field.schema, column.dataType, column.nullable, fieldPath)
          val fromColumn: WriteRow = (out, row) => write(out, row, i)
          fromColumn
        case None if field.hasDefaultValue =>
          val encoded = encodedDefault(field, fieldPath)
          val default: WriteRow = (out, _) => out.writeFixed(encoded)
          default
        case None =>
          throw mismatch(
            fieldPath,
            s"the struct has no such column, and the Avro field has no default. Add the column " +
              s"(of type ${hint(field.schema)}).")
      }
    }
    (out, row) => {
      var i = 0
      while (i < writes.length) {
        writes(i)(out, row)
        i += 1
      }
    }
  }

  /** The writer of a column of `dataType` as `schema`; null is checked for unless the column is not nullable. */
  private def value(schema: Schema, dataType: DataType, nullable: Boolean, path: String): Write =
    if (schema.getType == Type.UNION) AvroUnionWriters.union(schema, dataType, nullable, path)
    else {
      val write = nonNull(schema, dataType, path)
      if (!nullable || schema.getType == Type.NULL) write
      else
        (out, from, at) =>
          if (from.isNullAt(at))
            throw new AvroEncodeException(
              s"${FieldPath.column(path)}: null, and its Avro type ${describe(schema)} is not nullable. Replace " +
                "the nulls (coalesce), drop those rows, or write with a schema version where the field is a " +
                "union with null.")
          else write(out, from, at)
    }

  /** The writer of a value of `dataType` that is not null as `schema`, which is no union. */
  private[avro] def nonNull(schema: Schema, dataType: DataType, path: String): Write = {
    val logical = AvroSchemas.logicalName(schema)
    (schema.getType, dataType) match {
      case (Type.NULL, NullType) => (out, _, _) => out.writeNull()
      case (Type.BOOLEAN, BooleanType) => (out, from, at) => out.writeBoolean(from.getBoolean(at))
      case (Type.INT, DateType) if logical == "date" => (out, from, at) => out.writeInt(from.getInt(at))
      case (Type.INT, _) if logical != "date" && integral(dataType) <= 4 =>
        val read = integralGetter(dataType)
        (out, from, at) => out.writeInt(read(from, at).toInt)
      case (Type.LONG, TimestampType) if logical == "timestamp-micros" =>
        (out, from, at) => out.writeLong(from.getLong(at))
      case (Type.LONG, TimestampType) if logical == "timestamp-millis" =>
        (out, from, at) => out.writeLong(Math.floorDiv(from.getLong(at), 1000L))
      case (Type.LONG, TimestampNTZType) if logical == "local-timestamp-micros" =>
        (out, from, at) => out.writeLong(from.getLong(at))
      case (Type.LONG, TimestampNTZType) if logical == "local-timestamp-millis" =>
        (out, from, at) => out.writeLong(Math.floorDiv(from.getLong(at), 1000L))
      case (Type.LONG, _) if !logical.contains("timestamp") && integral(dataType) <= 8 =>
        val read = integralGetter(dataType)
        (out, from, at) => out.writeLong(read(from, at))
      case (Type.FLOAT, FloatType) => (out, from, at) => out.writeFloat(from.getFloat(at))
      case (Type.DOUBLE, FloatType) => (out, from, at) => out.writeDouble(from.getFloat(at).toDouble)
      case (Type.DOUBLE, DoubleType) => (out, from, at) => out.writeDouble(from.getDouble(at))
      case (Type.STRING, _: StringType) =>
        (out, from, at) => out.writeString(new Utf8(from.getUTF8String(at).getBytes))
      case (Type.ENUM, _: StringType) => enumSymbol(schema, path)
      case (Type.BYTES, BinaryType) if logical != "decimal" => (out, from, at) => out.writeBytes(from.getBinary(at))
      case (Type.FIXED, BinaryType) if logical != "decimal" =>
        val size = schema.getFixedSize
        (out, from, at) => {
          val bytes = from.getBinary(at)
          if (bytes.length != size)
            throw new AvroEncodeException(
              s"${FieldPath.column(path)}: ${bytes.length} bytes, and its Avro type ${describe(schema)} holds " +
                s"exactly $size. Write values of $size bytes only.")
          out.writeFixed(bytes)
        }
      case (Type.BYTES | Type.FIXED, d: DecimalType) if logical == "decimal" => AvroDecimals.writer(schema, d, path)
      case (Type.RECORD, s: StructType) =>
        val write = record(schema, s, path)
        (out, from, at) => write(out, from.getStruct(at, s.length))
      case (Type.ARRAY, ArrayType(element, containsNull)) =>
        val write = value(schema.getElementType, element, containsNull, FieldPath.element(path))
        (out, from, at) => {
          val array = from.getArray(at)
          val n = array.numElements()
          out.writeArrayStart()
          out.setItemCount(n.toLong)
          var i = 0
          while (i < n) {
            out.startItem()
            write(out, array, i)
            i += 1
          }
          out.writeArrayEnd()
        }
      case (Type.MAP, MapType(_: StringType, valueType, valueContainsNull)) =>
        val write = value(schema.getValueType, valueType, valueContainsNull, FieldPath.value(path))
        (out, from, at) => {
          val map = from.getMap(at)
          val keys = map.keyArray()
          val values = map.valueArray()
          val n = map.numElements()
          out.writeMapStart()
          out.setItemCount(n.toLong)
          var i = 0
          while (i < n) {
            out.startItem()
            out.writeString(new Utf8(keys.getUTF8String(i).getBytes))
            write(out, values, i)
            i += 1
          }
          out.writeMapEnd()
        }
      case (Type.BYTES | Type.FIXED, d: DecimalType) =>
        throw mismatch(path, s"a ${d.simpleString} column cannot be written as ${describe(schema)}. Cast it to binary.")
      case _ =>
        throw mismatch(
          path,
          s"a ${dataType.simpleString} column cannot be written as the Avro type ${describe(schema)}. Cast it " +
            s"to ${hint(schema)}.")
    }
  }

  /** The bytes of the integral types, for the widening checks; Int.MaxValue for any other type. */
  private def integral(dataType: DataType): Int = dataType match {
    case ByteType => 1
    case ShortType => 2
    case IntegerType => 4
    case LongType => 8
    case _ => Int.MaxValue
  }

  private def integralGetter(dataType: DataType): (SpecializedGetters, Int) => Long = dataType match {
    case ByteType => (from, at) => from.getByte(at).toLong
    case ShortType => (from, at) => from.getShort(at).toLong
    case IntegerType => (from, at) => from.getInt(at).toLong
    case _ => (from, at) => from.getLong(at)
  }

  private def enumSymbol(schema: Schema, path: String): Write = {
    val symbols = schema.getEnumSymbols.asScala.toIndexedSeq
    val index = new java.util.HashMap[org.apache.spark.unsafe.types.UTF8String, Integer]()
    symbols.zipWithIndex.foreach { case (s, i) =>
      index.put(org.apache.spark.unsafe.types.UTF8String.fromString(s), i)
    }
    (out, from, at) => {
      val value = from.getUTF8String(at)
      val i = index.get(value)
      if (i == null)
        throw new AvroEncodeException(
          s"${FieldPath.column(path)}: '$value' is no symbol of the Avro enum ${schema.getFullName} " +
            s"(${symbols.take(20).mkString(", ")}${if (symbols.size > 20) ", ..." else ""}). Map the value to " +
            "one of them, or write with a schema version whose enum has it.")
      out.writeEnum(i.intValue)
    }
  }

  /** An Avro field's default, encoded once: what is written for it when the struct has no such column. */
  private def encodedDefault(field: Schema.Field, path: String): Array[Byte] =
    try {
      val bytes = new ByteArrayOutputStream()
      val out = EncoderFactory.get.directBinaryEncoder(bytes, null)
      new GenericDatumWriter[Any](field.schema, GenericData.get).write(GenericData.get.getDefaultValue(field), out)
      out.flush()
      bytes.toByteArray
    } catch {
      case NonFatal(e) =>
        throw mismatch(
          path,
          s"the struct has no such column, and the Avro field's default cannot be written: ${e.getMessage}")
    }

  private[avro] def describe(schema: Schema): String = schema.getType match {
    case Type.UNION => schema.getTypes.asScala.map(describe).mkString("[", ", ", "]")
    case Type.RECORD => s"record ${schema.getFullName}"
    case Type.ENUM => s"enum ${schema.getFullName}"
    case Type.FIXED if schema.getLogicalType == null => s"fixed(${schema.getFixedSize})"
    case _ =>
      schema.getLogicalType match {
        case d: LogicalTypes.Decimal => s"decimal(${d.getPrecision}, ${d.getScale})"
        case null => schema.getType.getName
        case other => s"${schema.getType.getName} (${other.getName})"
      }
  }

  /** The Spark type to cast to, to write `schema`. */
  private[avro] def hint(schema: Schema): String =
    try AvroSchemas.sqlType(schema).simpleString
    catch { case _: AvroConversionException => describe(schema) }

  private[avro] def mismatch(path: String, what: String): AvroConversionException =
    new AvroConversionException(s"${FieldPath.column(path)}: $what")
}
