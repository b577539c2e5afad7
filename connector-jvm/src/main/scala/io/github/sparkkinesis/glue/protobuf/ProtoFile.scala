// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

/**
 * A `.proto` file as [[ProtoParser]] reads it: its messages and enums, nested as declared, every type name
 * resolved to a full name (`shop.Order.Item`), with what reading records of it needs and nothing else
 * (options, services, comments and reserved ranges are gone). The well-known types it imports
 * (`google.protobuf.Timestamp`, ...) are in [[types]] beside the file's own, but not in [[messages]].
 *
 * Immutable and thread-safe; made on the driver, and again on executors from the schema's text.
 *
 * @param syntax   `proto2` or `proto3`
 * @param messages the file's top-level messages, in declaration order
 */
private[sparkkinesis] final case class ProtoFile(
    syntax: String,
    packageName: String,
    messages: Seq[ProtoMessage],
    enums: Seq[ProtoEnum],
    imports: Seq[String]) {

  /** Every message of the file, nested ones included, depth first in declaration order. */
  lazy val allMessages: Seq[ProtoMessage] = {
    def walk(m: ProtoMessage): Seq[ProtoMessage] = m +: m.messages.flatMap(walk)
    messages.flatMap(walk)
  }

  /** The messages and enums a field may name, by full name: the file's own and the well-known ones. */
  lazy val types: Map[String, Either[ProtoEnum, ProtoMessage]] = {
    val own = allMessages.flatMap(m => m.enums.map(e => e.fullName -> Left(e)) :+ (m.fullName -> Right(m)))
    (WellKnownTypes.messages.map(m => m.fullName -> Right(m)) ++ enums.map(e => e.fullName -> Left(e)) ++ own).toMap
  }

  def message(fullName: String): ProtoMessage = types.get(fullName) match {
    case Some(Right(m)) => m
    case _ => throw new ProtoSchemaException(s"The schema has no message $fullName.")
  }

  def enumType(fullName: String): ProtoEnum = types.get(fullName) match {
    case Some(Left(e)) => e
    case _ => throw new ProtoSchemaException(s"The schema has no enum $fullName.")
  }
}

/** A message type: its fields in declaration order (a oneof's members where the oneof is declared). */
private[sparkkinesis] final case class ProtoMessage(
    fullName: String,
    name: String,
    fields: Seq[ProtoField],
    messages: Seq[ProtoMessage],
    enums: Seq[ProtoEnum])

/**
 * An enum type: its values in declaration order (the first is the default); several names may share a
 * number where `allow_alias` is set. Closed (a proto2 file's enum): a number it lacks is kept out of the
 * message, as an unknown field; open (proto3): such a number is a value too.
 */
private[sparkkinesis] final case class ProtoEnum(
    fullName: String,
    name: String,
    values: Seq[(String, Int)],
    closed: Boolean) {

  /** The name of each number: the first declared, when aliases share it (as protobuf-java names it). */
  lazy val names: Map[Int, String] = values.reverse.map { case (n, v) => v -> n }.toMap

  def defaultName: String = values.head._1
}

/**
 * A field of a message.
 *
 * @param label    `optional`, `required`, `repeated`, or empty for a proto3 field without a label (and a
 *                 map, a oneof member)
 * @param oneof    the oneof it is a member of
 * @param default  the value a proto2 field declares with `[default = ...]`, as a Scala value of its type
 *                 (Int, Long, Float, Double, Boolean, String, Array[Byte], or an enum value's name)
 * @param implicitPresence a proto3 scalar without `optional`, outside a oneof: a zero value is not written,
 *                 so "not set" and "zero" are the same on the wire
 * @param packed   a repeated scalar or enum written packed (one length-delimited run of its values), as
 *                 protobuf-java writes it: in proto3 unless `[packed = false]`, in proto2 only with
 *                 `[packed = true]`; false for every other field. Readers accept both forms either way.
 */
private[sparkkinesis] final case class ProtoField(
    name: String,
    number: Int,
    label: String,
    fieldType: ProtoType,
    oneof: Option[String],
    default: Option[Any],
    implicitPresence: Boolean,
    packed: Boolean = false) {
  def repeated: Boolean = label == "repeated"
  def required: Boolean = label == "required"
}

/** The type of a field. */
private[sparkkinesis] sealed trait ProtoType

/** A scalar type by its `.proto` name: `int32`, `sint64`, `fixed32`, `double`, `bool`, `string`, `bytes`, ... */
private[sparkkinesis] final case class ProtoScalar(name: String) extends ProtoType

private[sparkkinesis] final case class ProtoEnumRef(fullName: String) extends ProtoType

private[sparkkinesis] final case class ProtoMessageRef(fullName: String) extends ProtoType

/** `map<key, value>`: on the wire, a repeated message of `key = 1` and `value = 2`. */
private[sparkkinesis] final case class ProtoMap(key: ProtoScalar, value: ProtoType) extends ProtoType

/** A type name as written, before [[ProtoParser]] resolves it. */
private[protobuf] final case class ProtoUnresolved(name: String, line: Int, column: Int) extends ProtoType

private[sparkkinesis] object ProtoScalar {

  /** The scalar types, each with the wire type its values are written with (0 varint, 1 fixed64, 5 fixed32, 2 length). */
  val WireTypes: Map[String, Int] = Map(
    "int32" -> 0,
    "int64" -> 0,
    "uint32" -> 0,
    "uint64" -> 0,
    "sint32" -> 0,
    "sint64" -> 0,
    "bool" -> 0,
    "fixed64" -> 1,
    "sfixed64" -> 1,
    "double" -> 1,
    "fixed32" -> 5,
    "sfixed32" -> 5,
    "float" -> 5,
    "string" -> 2,
    "bytes" -> 2
  )

  /** The types a map's key may have: integral types, bool and string. */
  val KeyTypes: Set[String] = WireTypes.keySet -- Set("float", "double", "bytes")
}
