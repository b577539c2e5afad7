// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import java.nio.charset.StandardCharsets

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.glue.protobuf.ProtoWireReader.Malformed
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Reads the wire encoding of one Protobuf message of type `message` straight into Spark's internal values
 * of the type [[ProtoSchemas.sqlType]] gives it (an InternalRow), as Spark's `from_protobuf` would read it
 * with its default options, without protobuf-java:
 *
 *  - Fields are matched by number, so the reader's message type alone reads a record of any version of it:
 *    a field the record has and the reader lacks (a newer writer's) is skipped, as any unknown field is
 *    (groups included); one the reader has and the record lacks is null, or its declared proto2
 *    `[default = ...]`; a repeated field the record lacks is an empty array, a map an empty map.
 *  - Presence as protobuf-java tells it: a proto3 scalar without `optional` that holds its zero value (0,
 *    0.0, false, "", empty bytes, the enum's first value) is null, as such a value is not written and Spark
 *    reads it as null unless `emit.default.values`; fields with presence (proto2, proto3 `optional`, oneof
 *    members, messages) are null only when absent. A map entry's missing key or value is its zero value.
 *  - A field read twice keeps the last value (a scalar), appends (repeated), or merges (a message), as
 *    Protobuf merges; a oneof keeps its last member read, the others null.
 *  - Repeated scalars packed or not; map entries as their repeated messages (a key read twice keeps the
 *    last value); an enum by its number, as its value's name: a number an open (proto3) enum lacks as
 *    `UNKNOWN_ENUM_VALUE_<Enum>_<number>` (protobuf-java's name), one a closed (proto2) enum lacks left out
 *    as an unknown field; Timestamp as microseconds (nanoseconds truncated), Duration likewise.
 *  - Strings of a proto3 file must be UTF-8 (protobuf-java refuses others); a proto2 file's are decoded
 *    with replacement characters.
 *
 * Bounded: every length is checked against the bytes left in its enclosing message before anything is
 * allocated ([[ProtoWireReader]]), and messages and groups nest at most [[ProtoDecoder.MaxDepth]] deep.
 * Whatever is wrong fails with a [[ProtoDecodeException]] naming the field being read, never the data.
 *
 * Built once per task (its reading plan derives from the file); runs on executors; not thread-safe.
 *
 * @throws ProtoSchemaException when `message` is not in `file`, or has no Spark type
 */
private[sparkkinesis] final class ProtoDecoder(file: ProtoFile, messageFullName: String) {
  import ProtoDecoder._

  val dataType: StructType = ProtoSchemas.sqlType(file, messageFullName)
  private val root =
    new Plans(file).message(file.message(messageFullName), dataType, file.message(messageFullName).name)
  private val in = new ProtoWireReader
  private var path = ""

  /**
   * The message in `length` bytes of `bytes` from `offset`.
   *
   * @throws ProtoDecodeException when they are no message of the reader's type
   */
  def decode(bytes: Array[Byte], offset: Int, length: Int): InternalRow = {
    in.reset(bytes, offset, length)
    try {
      val state = new State(root)
      read(state, in.limit, 1)
      state.row()
    } catch {
      case e: Malformed =>
        throw new ProtoDecodeException(
          s"A record's message of $length bytes is no valid Protobuf message ${root.message.fullName} " +
            s"(reading ${if (path.isEmpty) "the message" else s"field $path"}): ${e.getMessage}. The record is " +
            "truncated or corrupt, or was written with another schema than the one it names.")
    }
  }

  /** Reads fields into `state` until `end`. */
  private def read(state: State, end: Int, depth: Int): Unit = {
    if (depth > MaxDepth) throw new Malformed(s"messages nest deeper than $MaxDepth levels")
    val plan = state.plan
    while (in.pos < end) {
      path = plan.path
      val tag = in.varint()
      val number = (tag >>> 3).toInt
      val wire = (tag & 7).toInt
      if (number <= 0) throw new Malformed(s"a tag has the field number $number")
      val field = plan.byNumber.get(number)
      if (field == null || !field.accepts(wire)) in.skip(wire, number, end, depth)
      else {
        path = field.path
        field.kind match {
          case Single =>
            val value = element(field.element, wire, end, depth)
            if (value.asInstanceOf[AnyRef] ne Absent) state.set(field, value)
          case Repeated =>
            if (wire == 2 && field.element.wire != 2) {
              val stop = in.end(end)
              while (in.pos < stop) {
                val value = element(field.element, field.element.wire, stop, depth)
                if (value.asInstanceOf[AnyRef] ne Absent) state.list(field) += value
              }
              if (in.pos != stop) throw new Malformed("a packed value runs past the end of its field")
            } else {
              val value = element(field.element, wire, end, depth)
              if (value.asInstanceOf[AnyRef] ne Absent) state.list(field) += value
            }
          case MapField =>
            val entry = new State(field.entry)
            val stop = in.end(end)
            read(entry, stop, depth + 1)
            val key = entry.zeroed(0)
            val value = entry.zeroed(1)
            state.put(field, key, value)
          case Child =>
            val stop = in.end(end)
            read(state.child(field), stop, depth + 1)
        }
      }
    }
  }

  /** One value of `e`; [[Absent]] for a number a closed enum lacks. */
  private def element(e: Element, wire: Int, end: Int, depth: Int): Any = e match {
    case Scalar(name, _) =>
      name match {
        case "int32" | "uint32" => in.varint().toInt
        case "int64" | "uint64" => in.varint()
        case "sint32" => val n = in.varint().toInt; (n >>> 1) ^ -(n & 1)
        case "sint64" => val n = in.varint(); (n >>> 1) ^ -(n & 1)
        case "bool" => in.varint() != 0
        case "fixed32" | "sfixed32" => in.fixed32()
        case "float" => java.lang.Float.intBitsToFloat(in.fixed32())
        case "fixed64" | "sfixed64" => in.fixed64()
        case "double" => java.lang.Double.longBitsToDouble(in.fixed64())
        case "bytes" => in.take(in.length(end))
        case _ => string(in.take(in.length(end)))
      }
    case EnumElement(enumType) =>
      val number = in.varint().toInt
      val name = enumType.names.get(number)
      if (name.isDefined) UTF8String.fromString(name.get)
      else if (enumType.closed) Absent
      else UTF8String.fromString(s"UNKNOWN_ENUM_VALUE_${enumType.name}_$number")
    case MessageElement(plan) =>
      val state = new State(plan)
      read(state, in.end(end), depth + 1)
      state.row()
    case TimeElement(plan, _) =>
      val state = new State(plan)
      read(state, in.end(end), depth + 1)
      state.micros()
  }

  private def string(bytes: Array[Byte]): UTF8String =
    if (!file.syntax.equals("proto3")) UTF8String.fromString(new String(bytes, StandardCharsets.UTF_8))
    else if (validUtf8(bytes)) UTF8String.fromBytes(bytes)
    else throw new Malformed("a string is not valid UTF-8 (proto3 strings must be)")
}

private[sparkkinesis] object ProtoDecoder {

  /** How deep messages and groups may nest in a record: protobuf-java's default recursion limit. */
  val MaxDepth: Int = 100

  /** Whether `b` is well-formed UTF-8: no overlong form, no surrogate, nothing above U+10FFFF. */
  private[protobuf] def validUtf8(b: Array[Byte]): Boolean = validUtf8(b, 0, b.length)

  /** Whether the `length` bytes of `b` from `from` are well-formed UTF-8. */
  private[protobuf] def validUtf8(b: Array[Byte], from: Int, length: Int): Boolean = {
    val end = from + length
    var i = from
    while (i < end) {
      val c = b(i) & 0xff
      if (c < 0x80) i += 1
      else {
        val (n, min) =
          if (c >= 0xc2 && c <= 0xdf) (1, 0x80)
          else if (c >= 0xe0 && c <= 0xef) (2, 0x800)
          else if (c >= 0xf0 && c <= 0xf4) (3, 0x10000)
          else return false
        if (i + n >= end) return false
        var cp = c & (0x3f >> n)
        var k = 1
        while (k <= n) {
          val d = b(i + k) & 0xff
          if ((d & 0xc0) != 0x80) return false
          cp = cp << 6 | (d & 0x3f)
          k += 1
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false
        i += n + 1
      }
    }
    true
  }

  /** A value left out: a number a closed enum lacks, read as an unknown field. */
  private object Absent

  private sealed trait Kind
  private case object Single extends Kind
  private case object Repeated extends Kind
  private case object MapField extends Kind
  private case object Child extends Kind

  /** How one value of a field is read, and the wire type it is written with. */
  private sealed trait Element { def wire: Int }
  private final case class Scalar(name: String, wire: Int) extends Element
  private final case class EnumElement(enumType: ProtoEnum) extends Element { def wire: Int = 0 }
  private final case class MessageElement(plan: MessagePlan) extends Element { def wire: Int = 2 }
  private final case class TimeElement(plan: MessagePlan, dataType: DataType) extends Element { def wire: Int = 2 }

  /** A field of the reader's type: where it goes in the row, and how it is read. */
  private final class FieldPlan(
      val field: ProtoField,
      val ordinal: Int,
      val path: String,
      val kind: Kind,
      val element: Element,
      val entry: MessagePlan,
      val child: MessagePlan,
      val default: Any,
      val zero: Any) {

    /** Whether a value of `wire` is this field's (packed or not for a repeated scalar); others are skipped. */
    def accepts(wire: Int): Boolean = kind match {
      case Repeated => wire == element.wire || (wire == 2 && element.wire != 2)
      case Single => wire == element.wire
      case _ => wire == 2
    }
  }

  private final class MessagePlan(
      val message: ProtoMessage,
      val path: String,
      val fields: Array[FieldPlan],
      val time: DataType) {
    val byNumber = new java.util.HashMap[Int, FieldPlan]()
    fields.foreach(f => byNumber.put(f.field.number, f))
    val oneofs: Map[String, Array[FieldPlan]] =
      fields.filter(_.field.oneof.isDefined).groupBy(_.field.oneof.get)
  }

  /** Builds the reading plan of a message and the messages it holds, once. */
  private final class Plans(file: ProtoFile) {

    def message(m: ProtoMessage, struct: StructType, path: String): MessagePlan = {
      val fields = struct.fields.zipWithIndex.map { case (sf, ordinal) =>
        val f = m.fields.find(_.name == sf.name).get
        val fieldPath = s"$path.${f.name}"
        (f.fieldType, sf.dataType) match {
          case (ProtoMap(k, v), MapType(kt, vt, _)) =>
            val entryFields = Seq(
              ProtoField("key", 1, "", k, None, None, implicitPresence = false),
              ProtoField("value", 2, "", v, None, None, implicitPresence = false))
            val entryStruct = StructType(Seq(StructField("key", kt), StructField("value", vt)))
            val entry = message(
              ProtoMessage(s"${m.fullName}.${ProtoSchemas.mapEntryName(f.name)}", "", entryFields, Nil, Nil),
              entryStruct,
              s"$fieldPath{}")
            new FieldPlan(f, ordinal, fieldPath, MapField, null, entry, null, null, null)
          case (t, ArrayType(et, _)) if f.repeated =>
            new FieldPlan(
              f,
              ordinal,
              s"$fieldPath[]",
              Repeated,
              element(t, et, s"$fieldPath[]"),
              null,
              null,
              null,
              null)
          case (ProtoMessageRef(name), st: StructType) =>
            new FieldPlan(
              f,
              ordinal,
              fieldPath,
              Child,
              null,
              null,
              message(file.message(name), st, fieldPath),
              null,
              null)
          case (t, dt) =>
            val e = element(t, dt, fieldPath)
            new FieldPlan(f, ordinal, fieldPath, Single, e, null, null, f.default.map(catalyst).orNull, zeroOf(e))
        }
      }
      val time = ProtoSchemas.special(m).orNull
      new MessagePlan(m, path, fields, time)
    }

    private def element(t: ProtoType, dt: DataType, path: String): Element = (t, dt) match {
      case (s: ProtoScalar, _) => Scalar(s.name, ProtoScalar.WireTypes(s.name))
      case (ProtoEnumRef(name), _) => EnumElement(file.enumType(name))
      case (ProtoMessageRef(name), st: StructType) => MessageElement(message(file.message(name), st, path))
      case (ProtoMessageRef(name), other) =>
        val m = file.message(name)
        TimeElement(
          message(m, ProtoSchemas.fields(file, m, Set(name), path).foldLeft(new StructType())(_ add _), path),
          other)
      case _ => throw new ProtoSchemaException(s"The field $path has no Spark type.")
    }

    private def zeroOf(e: Element): Any = e match {
      case Scalar(name, _) =>
        name match {
          case "int64" | "uint64" | "sint64" | "fixed64" | "sfixed64" => 0L
          case "float" => 0f
          case "double" => 0d
          case "bool" => false
          case "string" => UTF8String.EMPTY_UTF8
          case "bytes" => Array.emptyByteArray
          case _ => 0
        }
      case EnumElement(enumType) => UTF8String.fromString(enumType.defaultName)
      case _ => null
    }
  }

  private def catalyst(value: Any): Any = value match {
    case s: String => UTF8String.fromString(s)
    case other => other
  }

  /** Whether `value` is its field's zero value, which protobuf-java does not keep for implicit presence. */
  private def isZero(value: Any, zero: Any): Boolean = (value, zero) match {
    case (v: Float, _) => java.lang.Float.floatToIntBits(v) == 0
    case (v: Double, _) => java.lang.Double.doubleToLongBits(v) == 0L
    case (v: Array[Byte], _) => v.isEmpty
    case (v, z) => v == z
  }

  /** The fields read so far of one message. */
  private final class State(val plan: MessagePlan) {
    private val values = new Array[Any](plan.fields.length)
    private val present = new Array[Boolean](plan.fields.length)
    private var lists: Array[ArrayBuffer[Any]] = _
    private var children: Array[State] = _

    def set(f: FieldPlan, value: Any): Unit = {
      clearOneof(f)
      values(f.ordinal) = value
      present(f.ordinal) = true
    }

    def list(f: FieldPlan): ArrayBuffer[Any] = {
      if (lists == null) lists = new Array(plan.fields.length)
      if (lists(f.ordinal) == null) lists(f.ordinal) = ArrayBuffer.empty[Any]
      lists(f.ordinal)
    }

    def put(f: FieldPlan, key: Any, value: Any): Unit = {
      val l = list(f)
      l += key
      l += value
    }

    def child(f: FieldPlan): State = {
      if (children == null) children = new Array(plan.fields.length)
      if (children(f.ordinal) == null) {
        clearOneof(f)
        children(f.ordinal) = new State(f.child)
        present(f.ordinal) = true
      }
      children(f.ordinal)
    }

    private def clearOneof(f: FieldPlan): Unit = f.field.oneof.foreach { name =>
      plan.oneofs(name).foreach { other =>
        if (other ne f) {
          present(other.ordinal) = false
          values(other.ordinal) = null
          if (children != null) children(other.ordinal) = null
        }
      }
    }

    /** A map entry's key or value: read, or its zero value (an empty message's row for a message). */
    def zeroed(ordinal: Int): Any = {
      val f = plan.fields(ordinal)
      f.kind match {
        case Child => if (present(ordinal)) children(ordinal).row() else new State(f.child).row(required = false)
        case _ =>
          if (present(ordinal)) values(ordinal)
          else
            f.element match {
              case MessageElement(p) => new State(p).row(required = false)
              case TimeElement(p, _) => new State(p).micros()
              case _ => f.zero
            }
      }
    }

    /** The message's row; a `required` field it lacks fails it, as protobuf-java fails such a message. */
    def row(required: Boolean = true): GenericInternalRow = {
      val out = new Array[Any](plan.fields.length)
      var i = 0
      while (i < out.length) {
        val f = plan.fields(i)
        if (required && f.field.required && !present(i))
          throw new Malformed(s"it lacks the required field ${f.path}")
        out(i) = f.kind match {
          case Single =>
            if (!present(i)) f.default
            else if (f.field.implicitPresence && isZero(values(i), f.zero)) null
            else values(i)
          case Child => if (present(i)) children(i).row() else null
          case Repeated =>
            new GenericArrayData(if (lists == null || lists(i) == null) Array.empty[Any] else lists(i).toArray)
          case MapField => map(if (lists == null) null else lists(i))
        }
        i += 1
      }
      new GenericInternalRow(out)
    }

    /** Keys and values alternating, into a map; a key read twice keeps its last value, where it first was. */
    private def map(pairs: ArrayBuffer[Any]): ArrayBasedMapData = {
      if (pairs == null)
        return new ArrayBasedMapData(new GenericArrayData(Array.empty[Any]), new GenericArrayData(Array.empty[Any]))
      val index = new java.util.LinkedHashMap[Any, Any]()
      var i = 0
      while (i < pairs.length) {
        index.put(pairs(i), pairs(i + 1))
        i += 2
      }
      val keys = new Array[Any](index.size)
      val values = new Array[Any](index.size)
      var j = 0
      val it = index.entrySet().iterator()
      while (it.hasNext) {
        val e = it.next()
        keys(j) = e.getKey
        values(j) = e.getValue
        j += 1
      }
      new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values))
    }

    /** A Timestamp's or Duration's microseconds: its seconds and nanos (0 when absent). */
    def micros(): Long = {
      val r = row()
      val seconds = if (r.isNullAt(0)) 0L else r.getLong(0)
      val nanos = if (r.isNullAt(1)) 0 else r.getInt(1)
      try Math.addExact(Math.multiplyExact(seconds, 1000000L), (nanos / 1000).toLong)
      catch {
        case _: ArithmeticException =>
          throw new Malformed(s"a ${plan.message.name} of $seconds seconds is out of Spark's range")
      }
    }
  }
}
