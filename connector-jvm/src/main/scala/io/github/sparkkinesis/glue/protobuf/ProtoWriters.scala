// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import io.github.sparkkinesis.glue.protobuf.ProtoValueWriters.{EnumValue, Value}
import io.github.sparkkinesis.glue.FieldPath
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

/**
 * Builds the tree of writers that writes Spark's internal values as the wire encoding of a Protobuf message,
 * checking once, while building, that each column fits its field, as [[ProtoSchemas]] maps the field's
 * type to Spark's:
 *  - a struct fits a message when each column is a field of its exact name (Protobuf names are
 *    case-sensitive) whose type it fits, and each `required` (proto2) field has a column; fields without a
 *    column are not written (they read as not set);
 *  - integer fields take the integral types no wider than they are (byte, short and int as any integer
 *    type; long as the 64-bit ones); `uint32` and `fixed32` take an int's bits, as Spark reads them back;
 *    `float` floats, `double` floats and doubles, `bool` booleans, `string` strings, `bytes` binary;
 *  - an enum takes a string, the value's name; a `Timestamp` message a timestamp, a `Duration` message a
 *    day-time interval; any other message (the wrappers too) a struct of its fields;
 *  - `repeated T` takes an array of what T takes, `map<K, V>` a map whose keys and values fit K and V.
 *
 * Each row is written as protobuf-java writes the message: fields in the order of their numbers (whatever
 * the columns' order), a field of implicit presence (proto3 without `optional`) left out when null or zero
 * (0, 0.0 but not -0.0, false, "", empty bytes, an enum's value numbered 0), a field of explicit presence
 * (proto2, proto3 `optional`, a oneof's member, a message) written when not null, even when zero; a repeated
 * scalar packed as the field says ([[ProtoField.packed]]); a map's entries as messages of key (1) and
 * value (2), both always written. Null and empty arrays and maps write nothing, as an absent repeated field
 * reads as empty.
 *
 * A nullable column may feed a field that holds no null (Spark makes most columns nullable that never hold
 * null). A null arriving there (a required field, an array's element, a map's value) fails its record with
 * [[ProtoEncodeException]], as does a name the enum lacks, two members of one oneof set, or a proto3
 * string that is no UTF-8.
 *
 * The writers of single values (scalars, enums, Timestamp and Duration) are in [[ProtoValueWriters]].
 *
 * Runs on executors, built once per [[ProtoEncoder]]. The writers hold no state: thread-safe as far as the
 * [[ProtoWireWriter]] they are given is.
 */
private[protobuf] object ProtoWriters {

  /** Writes a row's fields; a nested message's, without its tag or length. */
  final class MessageWrite private[ProtoWriters] (fields: Array[FieldWrite], oneofs: Array[Oneof]) {

    def apply(out: ProtoWireWriter, row: InternalRow): Unit = {
      var g = 0
      while (g < oneofs.length) {
        oneofs(g).check(row)
        g += 1
      }
      var i = 0
      while (i < fields.length) {
        fields(i)(out, row)
        i += 1
      }
    }
  }

  /**
   * The writer of rows of `struct` as message `message` of `file`, or [[ProtoSchemaException]] naming the
   * first column that does not fit.
   */
  def message(file: ProtoFile, message: ProtoMessage, struct: StructType, path: String): MessageWrite = {
    val byName = message.fields.map(f => f.name -> f).toMap
    struct.fields.foreach { c =>
      val columnPath = FieldPath.field(path, c.name)
      if (struct.fields.count(_.name == c.name) > 1)
        throw mismatch(columnPath, "the struct has two columns of that name. Rename or drop one of them.")
      if (!byName.contains(c.name)) {
        val sameButCase = message.fields.find(_.name.equalsIgnoreCase(c.name))
        throw mismatch(
          columnPath,
          s"the Protobuf message ${message.fullName} has no field of that name" +
            sameButCase.map(f => s" (Protobuf names are case-sensitive: it has ${f.name})").getOrElse("") +
            ". Drop or rename the column, or write with a schema version that has the field."
        )
      }
    }
    message.fields.filter(f => f.required && !struct.fieldNames.contains(f.name)).foreach { f =>
      throw mismatch(
        FieldPath.field(path, f.name),
        s"the struct has no such column, and the Protobuf field is required. Add the column (of type " +
          s"${hint(file, f.fieldType, f.repeated)})."
      )
    }
    val writes = struct.fields.zipWithIndex
      .map { case (c, ordinal) => (byName(c.name), c, ordinal) }
      .sortBy(_._1.number)
      .flatMap { case (f, c, ordinal) => field(file, f, c, ordinal, FieldPath.field(path, c.name)) }
    val oneofs = struct.fields.zipWithIndex
      .flatMap { case (c, ordinal) => byName(c.name).oneof.map(o => (o, c, ordinal)) }
      .groupBy(_._1)
      .toSeq
      .sortBy(_._1)
      .collect {
        case (name, members) if members.length > 1 =>
          val paths = members.map(m => FieldPath.field(path, m._2.name))
          val notNull = members.filter(!_._2.nullable)
          if (notNull.length > 1)
            throw mismatch(
              paths.head,
              s"it and ${paths.tail.mkString(" and ")} are members of oneof $name of ${message.fullName}, which " +
                s"holds one of them at a time, and ${notNull.map(_._2.name).mkString(" and ")} are not nullable: " +
                "every row would set two. Make the struct's members nullable, null in all but one per row."
            )
          new Oneof(name, message.fullName, members.map(_._3), paths)
      }
    new MessageWrite(writes, oneofs.toArray)
  }

  /** Fails a row that sets two members of one oneof. */
  private final class Oneof(name: String, message: String, ordinals: Array[Int], paths: Array[String]) {

    def check(row: InternalRow): Unit = {
      var set = 0
      var i = 0
      while (i < ordinals.length) {
        if (!row.isNullAt(ordinals(i))) set += 1
        i += 1
      }
      if (set > 1)
        throw new ProtoEncodeException(
          s"columns ${paths.mkString(" and ")}: $set of them set in one row, and they are members of oneof $name of " +
            s"$message, which holds one at a time. Null all but one of them in each row (when/otherwise), or drop " +
            "those rows.")
    }
  }

  /** Writes one field of a row, tag and value; nothing when it has no value to write. */
  private abstract class FieldWrite {
    def apply(out: ProtoWireWriter, row: InternalRow): Unit
  }

  /** The writer of column `c` (at `ordinal`) as field `f`; none for a void column, which is never written. */
  private def field(file: ProtoFile, f: ProtoField, c: StructField, ordinal: Int, path: String): Option[FieldWrite] =
    (f.fieldType, c.dataType) match {
      case (_, NullType) =>
        if (f.required)
          throw mismatch(
            path,
            "a void column holds nothing but null, and the Protobuf field is required. Give it values (of type " +
              s"${hint(file, f.fieldType, f.repeated)}), or write with a schema version where it is optional."
          )
        None
      case (ProtoMap(k, v), MapType(kt, vt, _)) =>
        val key = keyValue(k, kt, file.syntax == "proto3", path)
        val value = element(file, v, vt, FieldPath.value(path))
        Some(new MapWrite(ordinal, tagOf(f.number, 2), key, value, FieldPath.value(path)))
      case (t, ArrayType(et, _)) if f.repeated && !t.isInstanceOf[ProtoMap] =>
        val value = element(file, t, et, FieldPath.element(path))
        Some(
          if (f.packed) new PackedWrite(ordinal, tagOf(f.number, 2), value, FieldPath.element(path))
          else new RepeatedWrite(ordinal, tagOf(f.number, value.wire), value, FieldPath.element(path)))
      case (t, dt) if f.repeated || t.isInstanceOf[ProtoMap] =>
        throw typeMismatch(file, f.fieldType, f.repeated, dt, path)
      case (t, dt) =>
        val value = this.value(file, t, dt, path)
        Some(new SingularWrite(ordinal, tagOf(f.number, value.wire), value, f.implicitPresence, f.required, path))
    }

  /** A repeated field's element or a map's value: not void, which would be nothing but null. */
  private def element(file: ProtoFile, t: ProtoType, dataType: DataType, path: String): Value =
    if (dataType == NullType)
      throw mismatch(
        path,
        s"void values are nothing but null, which Protobuf's repeated fields and maps do not hold. Cast them to " +
          s"${hint(file, t, repeated = false)}.")
    else value(file, t, dataType, path)

  private def value(file: ProtoFile, t: ProtoType, dataType: DataType, path: String): Value = (t, dataType) match {
    case (ProtoScalar(name), _) =>
      ProtoValueWriters
        .scalar(name, dataType, file.syntax == "proto3", path)
        .getOrElse(throw typeMismatch(file, t, false, dataType, path))
    case (ProtoEnumRef(name), _: StringType) => new EnumValue(file.enumType(name), path)
    case (ProtoMessageRef(name), _) =>
      val m = file.message(name)
      (ProtoSchemas.special(m), dataType) match {
        case (Some(TimestampType), TimestampType) => ProtoValueWriters.time(m, timestamp = true, path)
        case (Some(_: DayTimeIntervalType), _: DayTimeIntervalType) =>
          ProtoValueWriters.time(m, timestamp = false, path)
        case (None, s: StructType) => new MessageValue(message(file, m, s, path), s.length)
        case _ => throw typeMismatch(file, t, false, dataType, path)
      }
    case _ => throw typeMismatch(file, t, false, dataType, path)
  }

  /** A map's key: an integer, bool or string, written as the key type says. */
  private def keyValue(key: ProtoScalar, dataType: DataType, proto3: Boolean, path: String): Value =
    ProtoValueWriters.scalar(key.name, dataType, proto3, path).getOrElse {
      throw mismatch(
        path,
        s"the map's keys are ${dataType.simpleString}, and the Protobuf map's keys are ${key.name}. Cast the keys " +
          s"to ${ProtoSchemas.scalarType(key).simpleString} (transform_keys)."
      )
    }

  // ---- values ----

  /** A nested message: its length, then its fields. */
  private final class MessageValue(nested: MessageWrite, fields: Int) extends Value(2) {
    def write(out: ProtoWireWriter, from: SpecializedGetters, at: Int): Unit = {
      val start = out.beginLength()
      nested(out, from.getStruct(at, fields))
      out.endLength(start)
    }
    def isZero(from: SpecializedGetters, at: Int): Boolean = false
  }

  // ---- fields ----

  private def tagOf(number: Int, wire: Int): Int = number << 3 | wire

  /** A singular field: written when not null (and, of implicit presence, not zero); required, never null. */
  private final class SingularWrite(
      column: Int,
      tag: Int,
      value: Value,
      skipZero: Boolean,
      required: Boolean,
      path: String)
      extends FieldWrite {
    def apply(out: ProtoWireWriter, row: InternalRow): Unit =
      if (!row.isNullAt(column)) value.field(out, tag, row, column, skipZero)
      else if (required)
        throw new ProtoEncodeException(
          s"${FieldPath.column(path)}: null, and the Protobuf field is required. Replace the nulls (coalesce), " +
            "drop those rows, or write with a schema version where the field is optional.")
  }

  /** A repeated field not packed: a tag before each element. */
  private final class RepeatedWrite(column: Int, tag: Int, element: Value, path: String) extends FieldWrite {
    def apply(out: ProtoWireWriter, row: InternalRow): Unit =
      if (!row.isNullAt(column)) {
        val array = row.getArray(column)
        val n = array.numElements()
        var i = 0
        while (i < n) {
          if (array.isNullAt(i)) throw nullElement(path)
          out.uint32(tag)
          element.write(out, array, i)
          i += 1
        }
      }
  }

  /** A packed repeated scalar: one tag and length, then the elements; nothing when there are none. */
  private final class PackedWrite(column: Int, tag: Int, element: Value, path: String) extends FieldWrite {
    def apply(out: ProtoWireWriter, row: InternalRow): Unit =
      if (!row.isNullAt(column)) {
        val array = row.getArray(column)
        val n = array.numElements()
        if (n > 0) {
          out.uint32(tag)
          val start = out.beginLength()
          var i = 0
          while (i < n) {
            if (array.isNullAt(i)) throw nullElement(path)
            element.write(out, array, i)
            i += 1
          }
          out.endLength(start)
        }
      }
  }

  /** A map: each entry a message of its key (field 1) and value (field 2), both written, in the map's order. */
  private final class MapWrite(column: Int, tag: Int, key: Value, value: Value, path: String) extends FieldWrite {
    private val keyTag = tagOf(1, key.wire)
    private val valueTag = tagOf(2, value.wire)

    def apply(out: ProtoWireWriter, row: InternalRow): Unit =
      if (!row.isNullAt(column)) {
        val map = row.getMap(column)
        val keys = map.keyArray()
        val values = map.valueArray()
        val n = map.numElements()
        var i = 0
        while (i < n) {
          if (values.isNullAt(i))
            throw new ProtoEncodeException(
              s"${FieldPath.column(path)}: a null value, and Protobuf's maps hold no null. Remove those entries " +
                "(map_filter), replace the nulls, or drop those rows.")
          out.uint32(tag)
          val start = out.beginLength()
          out.uint32(keyTag)
          key.write(out, keys, i)
          out.uint32(valueTag)
          value.write(out, values, i)
          out.endLength(start)
          i += 1
        }
      }
  }

  private def nullElement(path: String): ProtoEncodeException =
    new ProtoEncodeException(
      s"${FieldPath.column(path)}: a null element, and Protobuf's repeated fields hold no null. Remove the nulls " +
        "(array_compact), replace them, or drop those rows.")

  // ---- messages ----

  private def mismatch(path: String, what: String): ProtoSchemaException =
    new ProtoSchemaException(s"${FieldPath.column(path)}: $what")

  private def typeMismatch(
      file: ProtoFile,
      t: ProtoType,
      repeated: Boolean,
      dataType: DataType,
      path: String): ProtoSchemaException =
    mismatch(
      path,
      s"Spark type ${dataType.simpleString} cannot be written as Protobuf ${describe(t, repeated)}. Cast it to " +
        s"${hint(file, t, repeated)}.")

  /** A field's type as the `.proto` file writes it. */
  private def describe(t: ProtoType, repeated: Boolean): String = {
    val one = t match {
      case ProtoScalar(name) => name
      case ProtoEnumRef(name) => s"enum $name"
      case ProtoMessageRef(name) => s"message $name"
      case ProtoMap(k, v) => s"map<${k.name}, ${describe(v, repeated = false)}>"
      case other => other.toString
    }
    if (repeated && !t.isInstanceOf[ProtoMap]) s"repeated $one" else one
  }

  /** The Spark type that fits a field of type `t`. */
  private def hint(file: ProtoFile, t: ProtoType, repeated: Boolean): String = {
    val one = t match {
      case s: ProtoScalar => ProtoSchemas.scalarType(s).simpleString
      case _: ProtoEnumRef => "string (the value's name)"
      case ProtoMessageRef(name) =>
        ProtoSchemas.special(file.message(name)).map(_.simpleString).getOrElse(s"a struct of $name's fields")
      case ProtoMap(k, v) => s"map<${ProtoSchemas.scalarType(k).simpleString}, ${hint(file, v, repeated = false)}>"
      case other => other.toString
    }
    if (repeated && !t.isInstanceOf[ProtoMap]) s"array<$one>" else one
  }
}
