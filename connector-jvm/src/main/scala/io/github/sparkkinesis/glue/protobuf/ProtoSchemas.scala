// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import scala.collection.mutable

import io.github.sparkkinesis.glue.{FieldPath, TypeUnfolding}
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
 * Which message of the file records are read and written as: [[recordMessage]]. Which message a record's
 * GSR message index names: [[messageIndex]]. The `.proto` file of a struct, to register it: [[fromSqlType]].
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
   * The message records of the file are read and written as: the one `messageName` names, by its full name
   * (`shop.Order`, `shop.Order.Line`) or, when no other message of the file has it, its simple name
   * (`Order`); without a name, [[readerMessage]].
   *
   * @throws ProtoSchemaException if the file has no message of that name (the message lists those it has),
   *                              the simple name is ambiguous, or the file declares no message
   */
  def recordMessage(file: ProtoFile, messageName: Option[String]): ProtoMessage = messageName match {
    case None => readerMessage(file)
    case Some(name) =>
      val all = file.allMessages
      all.find(_.fullName == name).getOrElse {
        all.filter(_.name == name) match {
          case Seq(one) => one
          case Seq() =>
            throw new ProtoSchemaException(
              s"the option messageName is $name, and the .proto file has no message of that name: its messages " +
                s"are ${if (all.isEmpty) "none" else all.map(_.fullName).mkString(", ")}. Name one of them, by " +
                "its full name or by its name alone when no other message has it")
          case several =>
            throw new ProtoSchemaException(
              s"the option messageName is $name, which names ${several.size} messages of the .proto file " +
                s"(${several.map(_.fullName).mkString(", ")}). Give the full name of one")
        }
      }
  }

  /**
   * The Spark type of message `messageFullName` of `file`.
   *
   * @throws ProtoSchemaException if the message is recursive, or the file has no such message
   */
  def sqlType(file: ProtoFile, messageFullName: String): StructType = {
    val message = file.message(messageFullName)
    val nodes = TypeUnfolding.size[ProtoType](ProtoMessageRef(message.fullName))(
      {
        case ProtoMessageRef(name) => Some(name)
        case _ => None
      },
      {
        case ProtoMessageRef(name) => file.message(name).fields.map(_.fieldType)
        case ProtoMap(key, value) => Seq(key, value)
        case _ => Nil
      }
    )
    if (TypeUnfolding.tooLarge(nodes))
      throw new ProtoSchemaException(
        TypeUnfolding.refusal("The .proto schema's message " + message.fullName, "messages"))
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

  // ---- the .proto file of a struct ----

  /**
   * The text of a proto3 `.proto` file that declares message `messageName` (`Order`, or `shop.Order` in
   * package `shop`) of the columns of `struct`, for registering a struct's own schema. The file reads back
   * ([[ProtoParser]], [[sqlType]]) as the struct's type, but for what Protobuf cannot say: a field's
   * nullability (proto3 fields are all nullable, an array's elements and a map's values never), and byte
   * and short, written as int32, which reads back as int.
   *
   *  - each column a field of its name, numbered from 1 in the columns' order (19000 to 19999, which
   *    Protobuf reserves, skipped);
   *  - boolean, byte, short and int, bigint, float, double, string, binary: `bool`, `int32`, `int64`, `float`,
   *    `double`, `string`, `bytes`, `optional` when the column is nullable, so that a null and a zero stay
   *    apart (a field of implicit presence reads back null for zero, as Spark's `from_protobuf` reads it);
   *  - timestamp: `google.protobuf.Timestamp`; `interval day to second`: `google.protobuf.Duration`;
   *  - a struct: a message nested in its parent, named after the column in camel case (`line_items`:
   *    `LineItems`, numbered when the name is taken);
   *  - an array: `repeated`; a map: `map<K, V>`, keyed by string, int, bigint or boolean.
   *
   * Refused, with a [[ProtoSchemaException]] naming the column and what to cast it to: types Protobuf has
   * none of that reads back as the same Spark type (decimal, date, timestamp_ntz, other intervals, void),
   * arrays and maps of arrays or maps (Protobuf nests repeated fields only in messages), map keys of other
   * types, structs of no columns (read back as nothing), column names that are no Protobuf names, and
   * columns whose names differ only in case or underscores (protoc refuses them in proto3).
   *
   * @throws ProtoSchemaException when the struct has no such file, or `messageName` is no Protobuf name
   */
  def fromSqlType(struct: StructType, messageName: String): String = {
    val parts = messageName.split("\\.", -1).toSeq
    if (!parts.forall(isIdentifier))
      throw new ProtoSchemaException(
        s"The message name $messageName is no Protobuf name: letters, digits and _, not starting with a digit, " +
          "in parts joined by dots (a package, then the message).")
    val name = parts.last
    // A top-level name `google` would hide the well-known types' package from a relative name.
    val wellKnown = if (name == "google" || parts.head == "google") ".google.protobuf." else "google.protobuf."
    val declarations = new Declarations(wellKnown)
    val body = new StringBuilder
    declarations.message(struct, name, "", FieldPath.Root, body)
    val text = new StringBuilder("syntax = \"proto3\";\n")
    if (parts.length > 1) text.append(s"package ${parts.init.mkString(".")};\n")
    if (declarations.imports.nonEmpty) {
      text.append('\n')
      declarations.imports.foreach(i => text.append("import \"").append(i).append("\";\n"))
    }
    text.append('\n').append(body).toString
  }

  private def isIdentifier(name: String): Boolean =
    name.nonEmpty && !name.head.isDigit && name.forall(c => c < 128 && (c.isLetterOrDigit || c == '_'))

  /** Writes the messages of a struct; remembers the imports they need. */
  private final class Declarations(wellKnown: String) {
    val imports: mutable.SortedSet[String] = mutable.SortedSet.empty[String]

    def message(struct: StructType, name: String, indent: String, path: String, out: StringBuilder): Unit = {
      if (struct.isEmpty)
        throw refused(
          path,
          "a struct of no columns, which Protobuf reads back as nothing (an empty message is left out). Drop it, " +
            "or give it a column.")
      struct.fields.foreach { f =>
        val p = FieldPath.field(path, f.name)
        if (!isIdentifier(f.name))
          throw refused(
            p,
            "the name is no Protobuf field name (letters, digits and _, not starting with a digit). Rename the " +
              "column (alias).")
        if (struct.fields.count(_.name == f.name) > 1)
          throw refused(p, "the struct has two columns of that name. Rename or drop one of them.")
      }
      struct.fields
        .groupBy(_.name.replace("_", "").toLowerCase(java.util.Locale.ROOT))
        .values
        .find(_.length > 1)
        .foreach { same =>
          throw refused(
            FieldPath.field(path, same.head.name),
            s"it and ${same.tail.map(_.name).mkString(" and ")} have names that differ only in case or underscores, " +
              "which protoc refuses in a proto3 message (their JSON names clash). Rename one of them."
          )
        }
      val used = mutable.Set(name) ++ struct.fieldNames ++
        struct.fields.collect { case f if f.dataType.isInstanceOf[MapType] => mapEntryName(f.name) }
      val nested = mutable.ArrayBuffer.empty[(StructType, String, String)]
      def nestedName(column: String, s: StructType, p: String): String = {
        val camel = mapEntryName(column).stripSuffix("Entry")
        val base = if (isIdentifier(camel)) camel else s"M$camel"
        var n = base
        var k = 2
        while (used.contains(n)) { n = s"$base$k"; k += 1 }
        used += n
        nested += ((s, n, p))
        n
      }
      def element(dataType: DataType, column: String, p: String): String = dataType match {
        case s: StructType => nestedName(column, s, p)
        case _: ArrayType | _: MapType =>
          throw refused(
            p,
            s"Protobuf nests repeated fields and maps only in messages, so ${dataType.simpleString} has no " +
              "Protobuf type as an array's element or a map's value. Wrap it in a struct (transform(..., x -> " +
              "struct(x AS values)))."
          )
        case other => atom(other, p)._1
      }
      out.append(indent).append(s"message $name {\n")
      struct.fields.zipWithIndex.foreach { case (f, i) =>
        val p = FieldPath.field(path, f.name)
        val (label, typeName) = f.dataType match {
          case ArrayType(e, _) => ("repeated ", element(e, f.name, FieldPath.element(p)))
          case MapType(k, v, _) => ("", s"map<${key(k, p)}, ${element(v, f.name, FieldPath.value(p))}>")
          case s: StructType => ("", nestedName(f.name, s, p))
          case other =>
            val (t, isMessage) = atom(other, p)
            (if (f.nullable && !isMessage) "optional " else "", t)
        }
        val number = if (i + 1 >= 19000) i + 1001 else i + 1
        out.append(indent).append("  ").append(label).append(typeName).append(' ').append(f.name)
        out.append(" = ").append(number).append(";\n")
      }
      nested.foreach { case (s, n, p) =>
        out.append('\n')
        message(s, n, indent + "  ", p, out)
      }
      out.append(indent).append("}\n")
    }

    private def key(dataType: DataType, path: String): String = dataType match {
      case _: StringType | _: CharType | _: VarcharType => "string"
      case IntegerType => "int32"
      case LongType => "int64"
      case BooleanType => "bool"
      case other =>
        throw refused(
          path,
          s"the map's keys are ${other.simpleString}, and Protobuf keys a map by string, int, bigint or boolean " +
            "alone. Cast the keys to string (transform_keys)."
        )
    }

    /** The type of a value that is no struct, array or map, and whether it is a message. */
    private def atom(dataType: DataType, path: String): (String, Boolean) = dataType match {
      case BooleanType => ("bool", false)
      case ByteType | ShortType | IntegerType => ("int32", false)
      case LongType => ("int64", false)
      case FloatType => ("float", false)
      case DoubleType => ("double", false)
      case _: StringType | _: CharType | _: VarcharType => ("string", false)
      case BinaryType => ("bytes", false)
      case TimestampType =>
        imports += "google/protobuf/timestamp.proto"
        (s"${wellKnown}Timestamp", true)
      case DayTimeIntervalType(DayTimeIntervalType.DAY, DayTimeIntervalType.SECOND) =>
        imports += "google/protobuf/duration.proto"
        (s"${wellKnown}Duration", true)
      case other => throw refused(path, s"Spark type ${other.simpleString} ${castHint(other)}")
    }

    private def castHint(dataType: DataType): String = dataType match {
      case _: DecimalType =>
        "has no Protobuf type that reads back as a decimal. Cast it to double, or to string to keep every digit."
      case DateType =>
        "has no Protobuf type that reads back as a date. Cast it to timestamp (midnight UTC), or to string."
      case TimestampNTZType =>
        "has no Protobuf type that reads back as it (a google.protobuf.Timestamp is an instant). Cast it to " +
          "timestamp."
      case _: DayTimeIntervalType =>
        "has no Protobuf type that reads back as it (a google.protobuf.Duration reads as interval day to " +
          "second). Cast it to interval day to second."
      case NullType => "holds nothing but null, and has no Protobuf type. Cast it to the type its values would have."
      case _ => "has no Protobuf type that reads back as it. Cast it to string, or to a number."
    }

    private def refused(path: String, what: String): ProtoSchemaException =
      new ProtoSchemaException(s"${FieldPath.column(path)}: $what")
  }
}
