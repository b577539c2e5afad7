// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import org.apache.spark.sql.types._

/**
 * The Spark type of a message of a [[ProtoFile]], as Spark's own `from_protobuf` maps it with its default
 * options (spark-protobuf's `SchemaConverters`), so that a column reads the same either way:
 *
 *  - `int32`, `sint32`, `sfixed32`, and also `uint32` and `fixed32`: int (an unsigned value above
 *    2^31^-1 reads as a negative int, its bits kept, as Spark reads it unless `upcast.unsigned.ints`);
 *    `int64`, `sint64`, `sfixed64`, `uint64`, `fixed64`: bigint (the same for unsigned values);
 *    `float`, `double`, `bool`, `string`; `bytes`: binary.
 *  - an enum: string, the value's name.
 *  - a message: a struct of its fields in declaration order (a oneof's members where they are declared);
 *    a message with no fields (after the rule below) is left out of its parent, as Spark leaves it out.
 *  - a message named `Timestamp` of fields `seconds` and `nanos` (`google.protobuf.Timestamp`): timestamp;
 *    one named `Duration` likewise: `interval day to second`. The wrappers (`google.protobuf.Int32Value`,
 *    ...) are structs of their `value`, as Spark maps them unless `unwrap.primitive.wrapper.types`.
 *  - `repeated T`: an array of T's type, no null elements; `map<K, V>`: a map, no null values.
 *  - a singular field is nullable unless `required`.
 *
 * A recursive message (one that contains itself, directly or through others) fails with a
 * [[ProtoSchemaException]], as Spark fails unless `recursive.fields.max.depth` is set.
 *
 * Which message of the file records are read as: [[readerMessage]]. Which message a record's GSR message
 * index names: [[messageIndex]].
 *
 * Stateless and thread-safe; runs on the driver when the reader schema is fixed, and on executors.
 */
private[sparkkinesis] object ProtoSchemas {

  /**
   * The message records of the file are read as: its first top-level message, in declaration order. The
   * registry's serializers register the file of the message they write (the index in each record says
   * which message of it); a file written for one message type declares that type first, with the types it
   * uses after it or nested in it.
   *
   * @throws ProtoSchemaException if the file declares no message
   */
  def readerMessage(file: ProtoFile): ProtoMessage =
    file.messages.headOption.getOrElse {
      throw new ProtoSchemaException(
        "The .proto schema declares no message: register a schema that declares the records' message first.")
    }

  /**
   * The Spark type of message `messageFullName` of `file`.
   *
   * @throws ProtoSchemaException if the message is recursive, or the file has no such message
   */
  def sqlType(file: ProtoFile, messageFullName: String): StructType = {
    val message = file.message(messageFullName)
    StructType(fields(file, message, Set(message.fullName), message.name))
  }

  /** The fields of `message` Spark keeps, each field's type for those it keeps, in order. */
  private[protobuf] def fields(
      file: ProtoFile,
      message: ProtoMessage,
      ancestors: Set[String],
      path: String): Seq[StructField] =
    message.fields.flatMap { f =>
      val fieldPath = s"$path.${f.name}"
      (f.fieldType match {
        case ProtoMap(key, value) =>
          elementType(file, value, ancestors, s"$fieldPath{}").map(
            MapType(scalarType(key), _, valueContainsNull = false))
        case t =>
          elementType(file, t, ancestors, if (f.repeated) s"$fieldPath[]" else fieldPath)
            .map(dt => if (f.repeated) ArrayType(dt, containsNull = false) else dt)
      }).map { dt =>
        val nullable = f.repeated || f.fieldType.isInstanceOf[ProtoMap] || !f.required
        StructField(f.name, dt, nullable)
      }
    }

  /** The type of one value of type `t`; none for a message with no fields kept. */
  private def elementType(file: ProtoFile, t: ProtoType, ancestors: Set[String], path: String): Option[DataType] =
    t match {
      case s: ProtoScalar => Some(scalarType(s))
      case _: ProtoEnumRef => Some(StringType)
      case ProtoMessageRef(name) =>
        val message = file.message(name)
        special(message).orElse {
          if (ancestors.contains(name))
            throw new ProtoSchemaException(
              s"The .proto schema's message $name contains itself (at $path): Spark has no type for a " +
                "recursive message. Register a reader schema without the recursion, such as one that keeps the " +
                "nested value as bytes.")
          val nested = fields(file, message, ancestors + name, path)
          if (nested.isEmpty) None else Some(StructType(nested))
        }
      case other => throw new ProtoSchemaException(s"The field $path has the type $other, which has no Spark type.")
    }

  /** The type Spark gives a Timestamp or Duration message, recognised as Spark recognises them. */
  private[protobuf] def special(message: ProtoMessage): Option[DataType] =
    if (!isSecondsAndNanos(message)) None
    else if (message.name == "Timestamp") Some(TimestampType)
    else if (message.name == "Duration") Some(DayTimeIntervalType())
    else None

  private def isSecondsAndNanos(message: ProtoMessage): Boolean =
    message.fields.map(_.name) == Seq("seconds", "nanos")

  def scalarType(s: ProtoScalar): DataType = s.name match {
    case "int32" | "sint32" | "sfixed32" | "uint32" | "fixed32" => IntegerType
    case "int64" | "sint64" | "sfixed64" | "uint64" | "fixed64" => LongType
    case "float" => FloatType
    case "double" => DoubleType
    case "bool" => BooleanType
    case "string" => StringType
    case "bytes" => BinaryType
    case other => throw new ProtoSchemaException(s"The scalar type $other has no Spark type.")
  }

  /**
   * The full names of the file's messages by the index the registry's serializers write before each
   * record's message (`MessageIndexFinder` of awslabs/aws-glue-schema-registry): every message of the file,
   * nested ones and the entry messages protoc makes for map fields (`TagsEntry` for `map<..> tags`)
   * included, sorted by full name (Java's `String` order), numbered from 0.
   */
  def messageIndex(file: ProtoFile): IndexedSeq[String] = {
    def names(m: ProtoMessage): Seq[String] =
      (m.fullName +: m.fields.collect {
        case f if f.fieldType.isInstanceOf[ProtoMap] => s"${m.fullName}.${mapEntryName(f.name)}"
      }) ++
        m.messages.flatMap(names)
    file.messages.flatMap(names).sorted.toIndexedSeq
  }

  /** The name protoc gives a map field's entry message: the field's name in camel case, then `Entry`. */
  def mapEntryName(field: String): String = {
    val sb = new StringBuilder
    var upper = true
    field.foreach { c =>
      if (c == '_') upper = true
      else {
        sb.append(if (upper && c >= 'a' && c <= 'z') (c - 'a' + 'A').toChar else c)
        upper = false
      }
    }
    sb.append("Entry").toString
  }
}
