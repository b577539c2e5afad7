// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import scala.annotation.switch
import scala.util.Try

import io.github.sparkkinesis.glue.FieldPath
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * The writers of one value of a field, without its tag, for [[ProtoWriters]]: scalars as their field's
 * type says (varint, zigzag, fixed, length-delimited), from the Spark types that fit it (integral types no
 * wider than the field, float into double); an enum's value by name, written as its number; a timestamp or
 * day-time interval as a Timestamp or Duration message. Each says whether a value is zero, which a field
 * of implicit presence does not write.
 *
 * Runs on executors, built once per [[ProtoEncoder]]; the writers hold no state.
 */
private[protobuf] object ProtoValueWriters {

  /** Writes a value (not null) without its tag. */
  abstract class Value(val wire: Int) {
    def write(out: ProtoWireWriter, from: SpecializedGetters, at: Int): Unit

    /** Whether it is its type's zero, which a field of implicit presence does not write. */
    def isZero(from: SpecializedGetters, at: Int): Boolean

    /** The field `tag` of the value at `at`; nothing when `skipZero` and it is zero. */
    def field(out: ProtoWireWriter, tag: Int, from: SpecializedGetters, at: Int, skipZero: Boolean): Unit =
      if (!skipZero || !isZero(from, at)) {
        out.uint32(tag)
        write(out, from, at)
      }
  }

  private trait LongRead {
    def apply(from: SpecializedGetters, at: Int): Long
  }

  // How an integer is written, by the field's type.
  private final val Varint = 0 // int32 (sign-extended), int64, uint64
  private final val UInt32 = 1
  private final val SInt32 = 2
  private final val SInt64 = 3
  private final val Fixed32 = 4 // fixed32, sfixed32
  private final val Fixed64 = 5 // fixed64, sfixed64

  private def writeInteger(out: ProtoWireWriter, encoding: Int, v: Long): Unit = (encoding: @switch) match {
    case Varint => out.varint(v)
    case UInt32 => out.uint32(v.toInt)
    case SInt32 => val i = v.toInt; out.uint32((i << 1) ^ (i >> 31))
    case SInt64 => out.varint((v << 1) ^ (v >> 63))
    case Fixed32 => out.fixed32(v.toInt)
    case _ => out.fixed64(v)
  }

  private def wireOf(encoding: Int): Int = encoding match {
    case Fixed32 => 5
    case Fixed64 => 1
    case _ => 0
  }

  /** How the integer type `name` is written, and how many bytes of a Spark integer it holds. */
  private def integerType(name: String): Option[(Int, Int)] = name match {
    case "int32" => Some((Varint, 4))
    case "uint32" => Some((UInt32, 4))
    case "sint32" => Some((SInt32, 4))
    case "fixed32" | "sfixed32" => Some((Fixed32, 4))
    case "int64" | "uint64" => Some((Varint, 8))
    case "sint64" => Some((SInt64, 8))
    case "fixed64" | "sfixed64" => Some((Fixed64, 8))
    case _ => None
  }

  /** Reads an integral column of at most `bytes` bytes as a long. */
  private def integral(dataType: DataType, bytes: Int): Option[LongRead] = dataType match {
    case ByteType => Some((from, at) => from.getByte(at).toLong)
    case ShortType => Some((from, at) => from.getShort(at).toLong)
    case IntegerType => Some((from, at) => from.getInt(at).toLong)
    case LongType if bytes == 8 => Some((from, at) => from.getLong(at))
    case _ => None
  }

  /** The writer of a Spark value of `dataType` as scalar type `name`, if it fits. */
  def scalar(name: String, dataType: DataType, validateUtf8: Boolean, path: String): Option[Value] =
    integerType(name) match {
      case Some((encoding, bytes)) => integral(dataType, bytes).map(read => new IntegerValue(read, encoding))
      case None =>
        (name, dataType) match {
          case ("float", FloatType) => Some(new FloatValue)
          case ("double", DoubleType) => Some(new DoubleValue(widened = false))
          case ("double", FloatType) => Some(new DoubleValue(widened = true))
          case ("bool", BooleanType) => Some(new BoolValue)
          case ("string", _: StringType | _: CharType | _: VarcharType) => Some(new StringValue(validateUtf8, path))
          case ("bytes", BinaryType) => Some(new BytesValue)
          case _ => None
        }
    }

  private final class IntegerValue(read: LongRead, encoding: Int) extends Value(wireOf(encoding)) {
    def write(out: ProtoWireWriter, from: SpecializedGetters, at: Int): Unit =
      writeInteger(out, encoding, read(from, at))
    def isZero(from: SpecializedGetters, at: Int): Boolean = read(from, at) == 0L
  }

  private final class FloatValue extends Value(5) {
    def write(out: ProtoWireWriter, from: SpecializedGetters, at: Int): Unit =
      out.fixed32(java.lang.Float.floatToRawIntBits(from.getFloat(at)))
    def isZero(from: SpecializedGetters, at: Int): Boolean = java.lang.Float.floatToRawIntBits(from.getFloat(at)) == 0
  }

  private final class DoubleValue(widened: Boolean) extends Value(1) {
    private def get(from: SpecializedGetters, at: Int): Double =
      if (widened) from.getFloat(at).toDouble else from.getDouble(at)
    def write(out: ProtoWireWriter, from: SpecializedGetters, at: Int): Unit =
      out.fixed64(java.lang.Double.doubleToRawLongBits(get(from, at)))
    def isZero(from: SpecializedGetters, at: Int): Boolean = java.lang.Double.doubleToRawLongBits(get(from, at)) == 0L
  }

  private final class BoolValue extends Value(0) {
    def write(out: ProtoWireWriter, from: SpecializedGetters, at: Int): Unit =
      out.byte(if (from.getBoolean(at)) 1 else 0)
    def isZero(from: SpecializedGetters, at: Int): Boolean = !from.getBoolean(at)
  }

  /** A string's UTF-8 bytes, as Spark holds them; checked to be UTF-8 for a proto3 file, whose readers check. */
  private final class StringValue(validate: Boolean, path: String) extends Value(2) {
    def write(out: ProtoWireWriter, from: SpecializedGetters, at: Int): Unit = string(out, from.getUTF8String(at))

    private def string(out: ProtoWireWriter, s: UTF8String): Unit = {
      out.utf8(s)
      if (validate && !out.validUtf8(out.position - s.numBytes, s.numBytes))
        throw new ProtoEncodeException(
          s"${FieldPath.column(path)}: a string that is not valid UTF-8, which proto3 strings must be (readers " +
            "refuse the record). Fix the strings (made from binary by a cast?), or write with a schema version " +
            "where the field is bytes.")
    }

    def isZero(from: SpecializedGetters, at: Int): Boolean = from.getUTF8String(at).numBytes == 0

    /** Spark's getter makes a string of each call: one call. */
    override def field(out: ProtoWireWriter, tag: Int, from: SpecializedGetters, at: Int, skipZero: Boolean): Unit = {
      val s = from.getUTF8String(at)
      if (!skipZero || s.numBytes != 0) {
        out.uint32(tag)
        string(out, s)
      }
    }
  }

  private final class BytesValue extends Value(2) {
    def write(out: ProtoWireWriter, from: SpecializedGetters, at: Int): Unit = out.bytes(from.getBinary(at))
    def isZero(from: SpecializedGetters, at: Int): Boolean = from.getBinary(at).length == 0

    /** Spark's getter copies the bytes at each call: one call. */
    override def field(out: ProtoWireWriter, tag: Int, from: SpecializedGetters, at: Int, skipZero: Boolean): Unit = {
      val b = from.getBinary(at)
      if (!skipZero || b.length != 0) {
        out.uint32(tag)
        out.bytes(b)
      }
    }
  }

  /**
   * An enum's value by its name, written as its number (the first declared, where aliases share it). An open
   * (proto3) enum also takes a number it has no name for as [[ProtoDecoder]] reads one,
   * `UNKNOWN_ENUM_VALUE_<Enum>_<number>`: a record read and written again keeps it.
   */
  final class EnumValue(enumType: ProtoEnum, path: String) extends Value(0) {
    private val numbers = new java.util.HashMap[UTF8String, Integer]()
    enumType.values.foreach { case (name, number) => numbers.put(UTF8String.fromString(name), number) }
    private val unnamed = s"UNKNOWN_ENUM_VALUE_${enumType.name}_"

    private def number(from: SpecializedGetters, at: Int): Int = {
      val value = from.getUTF8String(at)
      val n = numbers.get(value)
      if (n != null) n
      else
        unnamedNumber(value.toString).getOrElse {
          throw new ProtoEncodeException(
            s"${FieldPath.column(path)}: a string that names no value of enum ${enumType.fullName} (its values: " +
              s"${enumType.values.map(_._1).mkString(", ")}). Map the strings to those names, or drop those rows.")
        }
    }

    private def unnamedNumber(value: String): Option[Int] =
      if (enumType.closed || !value.startsWith(unnamed)) None
      else Try(Integer.parseInt(value.substring(unnamed.length))).toOption

    def write(out: ProtoWireWriter, from: SpecializedGetters, at: Int): Unit = out.varint(number(from, at).toLong)
    def isZero(from: SpecializedGetters, at: Int): Boolean = number(from, at) == 0

    override def field(out: ProtoWireWriter, tag: Int, from: SpecializedGetters, at: Int, skipZero: Boolean): Unit = {
      val n = number(from, at)
      if (!skipZero || n != 0) {
        out.uint32(tag)
        out.varint(n.toLong)
      }
    }
  }

  /**
   * The writer of a timestamp or day-time interval (microseconds) as a Timestamp or Duration message: its
   * `seconds` and `nanos` fields, each as its type and presence say. A Timestamp's nanos are never negative
   * (seconds rounded down), a Duration's have the sign of its seconds, as Protobuf defines them.
   */
  def time(m: ProtoMessage, timestamp: Boolean, path: String): Value = {
    def part(name: String, bytes: Int): (ProtoField, Int) = {
      val f = m.fields.find(_.name == name).get
      val encoding = f.fieldType match {
        case ProtoScalar(t) if !f.repeated => integerType(t).collect { case (e, b) if b >= bytes => e }
        case _ => None
      }
      encoding.map(f -> _).getOrElse {
        throw new ProtoSchemaException(
          s"${FieldPath.column(path)}: the Protobuf message ${m.fullName} is read as a ${if (timestamp) "timestamp"
            else "duration"}, and its " +
            s"field $name is no ${bytes * 8}-bit integer. Write with a schema version that uses the well-known " +
            s"google.protobuf.${m.name}."
        )
      }
    }
    new TimeValue(part("seconds", 8), part("nanos", 4), timestamp)
  }

  private final class TimeValue(seconds: (ProtoField, Int), nanos: (ProtoField, Int), timestamp: Boolean)
      extends Value(2) {
    private val secondsFirst = seconds._1.number < nanos._1.number

    def write(out: ProtoWireWriter, from: SpecializedGetters, at: Int): Unit = {
      val micros = from.getLong(at)
      val s = if (timestamp) Math.floorDiv(micros, 1000000L) else micros / 1000000L
      val n = (if (timestamp) Math.floorMod(micros, 1000000L) else micros % 1000000L) * 1000L
      val start = out.beginLength()
      if (secondsFirst) { part(out, seconds, s); part(out, nanos, n) }
      else { part(out, nanos, n); part(out, seconds, s) }
      out.endLength(start)
    }

    private def part(out: ProtoWireWriter, f: (ProtoField, Int), v: Long): Unit =
      if (v != 0 || !f._1.implicitPresence) {
        out.tag(f._1.number, wireOf(f._2))
        writeInteger(out, f._2, v)
      }

    def isZero(from: SpecializedGetters, at: Int): Boolean = false
  }
}
