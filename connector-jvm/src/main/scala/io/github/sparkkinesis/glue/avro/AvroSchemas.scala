// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.glue.{FieldPath, TypeUnfolding}
import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.Schema.Type
import org.apache.spark.sql.types._

/**
 * Avro schemas and Spark types, each way.
 *
 * [[sqlType]] is Spark's own mapping (that of `SchemaConverters.toSqlType` with its default options, as the
 * Avro data source guide lists it): null to NullType; boolean, int, long, float, double, bytes and fixed
 * (binary), string and enum (string) to their Spark types; record to struct, array to array, map to a map
 * with string keys; the logical types date (DateType), timestamp-millis and -micros (TimestampType),
 * local-timestamp-millis and -micros (TimestampNTZType) and decimal (DecimalType), other logical types as
 * their underlying type; unions as [[AvroUnion]] says. A value is nullable when null is a branch of its
 * union: a struct field, an array's elements, a map's values.
 *
 * [[fromSqlType]] is the schema a struct is registered with. It follows Spark's `SchemaConverters.toAvroType`
 * (byte and short as int, timestamp as timestamp-micros, timestamp_ntz as local-timestamp-micros, decimal as
 * a fixed named `fixed` of the fewest bytes for its precision, a nested struct as a record named for its
 * field in the namespace of the record around it) with one difference: a nullable value is the union
 * `["null", T]` and a nullable field has the default null, where Spark writes `[T, "null"]` and no default.
 * A field with a default can be added to or removed from a later version of the schema and still be
 * compatible in the registry's (BACKWARD, FORWARD, FULL) sense, and Avro takes a union's default from its
 * first branch: so null goes first.
 *
 * Runs anywhere (the driver plans with it, executors build converters with it). Stateless and thread-safe.
 */
private[sparkkinesis] object AvroSchemas {

  /**
   * The Spark type of `schema`'s values. Throws [[AvroConversionException]] for a recursive record, or one
   * whose type would be too large to build ([[TypeUnfolding]]).
   */
  def sqlType(schema: Schema): DataType = {
    val nodes = TypeUnfolding.size(schema)(
      s => if (s.getType == Type.RECORD) Some(s.getFullName) else None,
      s =>
        s.getType match {
          case Type.RECORD => s.getFields.asScala.map(_.schema)
          case Type.ARRAY => Seq(s.getElementType)
          case Type.MAP => Seq(s.getValueType)
          case Type.UNION => s.getTypes.asScala
          case _ => Nil
        }
    )
    if (TypeUnfolding.tooLarge(nodes))
      throw new AvroConversionException(TypeUnfolding.refusal("The Avro schema", "named records"))
    typeOf(schema, FieldPath.Root, Nil).dataType
  }

  /**
   * The Avro schema of a struct: a record named `recordName` in `namespace` (none when empty or null).
   * Throws [[AvroConversionException]] naming the first column that Avro cannot hold (a name Avro does not
   * allow, a type it has no equivalent for, a map whose keys are not strings).
   */
  def fromSqlType(struct: StructType, recordName: String, namespace: String): Schema = {
    checkName(recordName, "the record name")
    val space = Option(namespace).filter(_.nonEmpty).orNull
    if (space != null) space.split("\\.", -1).foreach(part => checkName(part, s"the namespace $namespace"))
    recordOf(struct, recordName, space, FieldPath.Root)
  }

  /** A Spark type and whether its values can be null. */
  private[avro] final case class SqlType(dataType: DataType, nullable: Boolean)

  /** The name of `schema`'s logical type, or "" when it has none. */
  private[avro] def logicalName(schema: Schema): String =
    Option(schema.getLogicalType).map(_.getName).getOrElse("")

  private[avro] def isTimestampMillis(schema: Schema): Boolean =
    logicalName(schema) == "timestamp-millis" || logicalName(schema) == "local-timestamp-millis"

  private[avro] def typeOf(schema: Schema, path: String, records: List[String]): SqlType = schema.getType match {
    case Type.NULL => SqlType(NullType, nullable = true)
    case Type.BOOLEAN => SqlType(BooleanType, nullable = false)
    case Type.INT => SqlType(if (logicalName(schema) == "date") DateType else IntegerType, nullable = false)
    case Type.LONG =>
      val dataType = logicalName(schema) match {
        case "timestamp-millis" | "timestamp-micros" => TimestampType
        case "local-timestamp-millis" | "local-timestamp-micros" => TimestampNTZType
        case _ => LongType
      }
      SqlType(dataType, nullable = false)
    case Type.FLOAT => SqlType(FloatType, nullable = false)
    case Type.DOUBLE => SqlType(DoubleType, nullable = false)
    case Type.BYTES | Type.FIXED =>
      schema.getLogicalType match {
        case d: LogicalTypes.Decimal => SqlType(decimalType(d, path), nullable = false)
        case _ => SqlType(BinaryType, nullable = false)
      }
    case Type.STRING | Type.ENUM => SqlType(StringType, nullable = false)
    case Type.RECORD =>
      val name = schema.getFullName
      if (records.contains(name))
        throw new AvroConversionException(
          s"The Avro record $name contains itself at ${FieldPath.avroField(path)}: Spark has no recursive types, so " +
            "values of this schema cannot be read. Use a schema whose records do not nest themselves.")
      val fields = schema.getFields.asScala.map { f =>
        val t = typeOf(f.schema, FieldPath.field(path, f.name), name :: records)
        StructField(f.name, t.dataType, t.nullable)
      }
      SqlType(StructType(fields.toSeq), nullable = false)
    case Type.ARRAY =>
      val element = typeOf(schema.getElementType, FieldPath.element(path), records)
      SqlType(ArrayType(element.dataType, element.nullable), nullable = false)
    case Type.MAP =>
      val value = typeOf(schema.getValueType, FieldPath.value(path), records)
      SqlType(MapType(StringType, value.dataType, value.nullable), nullable = false)
    case Type.UNION =>
      val union = AvroUnion(schema)
      union.kind match {
        case AvroUnion.NullOnly => SqlType(NullType, nullable = true)
        case AvroUnion.Single => SqlType(typeOf(union.branches.head.schema, path, records).dataType, union.nullable)
        case AvroUnion.Widened =>
          val wide = if (union.branches.exists(_.schema.getType == Type.LONG)) LongType else DoubleType
          SqlType(wide, union.nullable)
        case AvroUnion.Members =>
          val members = union.branches.zipWithIndex.map { case (branch, i) =>
            val name = AvroUnion.memberName(i)
            StructField(name, typeOf(branch.schema, FieldPath.field(path, name), records).dataType, nullable = true)
          }
          SqlType(StructType(members), union.nullable)
      }
  }

  private def decimalType(decimal: LogicalTypes.Decimal, path: String): DecimalType = {
    if (decimal.getPrecision > DecimalType.MAX_PRECISION)
      throw new AvroConversionException(
        s"${FieldPath.avroField(path)}: the Avro type decimal(${decimal.getPrecision}, ${decimal.getScale}) " +
          s"has more digits than Spark's decimals hold (${DecimalType.MAX_PRECISION}). Use a schema with a " +
          "smaller precision, or a string or bytes field without the decimal logical type.")
    DecimalType(decimal.getPrecision, decimal.getScale)
  }

  /**
   * Whether values of Spark type `expected` can be given as `actual`: the same type, where `actual` may allow
   * null in more places than `expected`, never fewer.
   */
  private[avro] def holds(actual: DataType, expected: DataType): Boolean = (actual, expected) match {
    case (StructType(a), StructType(e)) =>
      a.length == e.length && a.zip(e).forall { case (af, ef) =>
        af.name == ef.name && (af.nullable || !ef.nullable) && holds(af.dataType, ef.dataType)
      }
    case (ArrayType(a, an), ArrayType(e, en)) => (an || !en) && holds(a, e)
    case (MapType(ak, av, an), MapType(ek, ev, en)) => (an || !en) && holds(ak, ek) && holds(av, ev)
    case (_: StringType, _: StringType) => true
    case _ => actual == expected
  }

  // ---- Spark to Avro ----

  private def recordOf(struct: StructType, name: String, namespace: String, path: String): Schema = {
    val fullName = if (namespace == null) name else s"$namespace.$name"
    val seen = scala.collection.mutable.HashSet.empty[String]
    val fields = struct.fields.map { f =>
      val fieldPath = FieldPath.field(path, f.name)
      checkName(f.name, FieldPath.column(fieldPath))
      if (!seen.add(f.name))
        throw new AvroConversionException(
          s"${FieldPath.column(fieldPath)}: the struct has two columns of that name, and an Avro record's fields need " +
            "names of their own. Rename or drop one of them.")
      val schema = avroOf(f.dataType, f.nullable, f.name, fullName, fieldPath)
      if (f.nullable || f.dataType == NullType) new Schema.Field(f.name, schema, null, Schema.Field.NULL_DEFAULT_VALUE)
      else new Schema.Field(f.name, schema, null)
    }
    Schema.createRecord(name, null, namespace, false, fields.toList.asJava)
  }

  /** `name` names the record or fixed a struct or decimal becomes, placed in `namespace`. */
  private def avroOf(dataType: DataType, nullable: Boolean, name: String, namespace: String, path: String): Schema = {
    val base = dataType match {
      case NullType => Schema.create(Type.NULL)
      case BooleanType => Schema.create(Type.BOOLEAN)
      case ByteType | ShortType | IntegerType => Schema.create(Type.INT)
      case LongType => Schema.create(Type.LONG)
      case FloatType => Schema.create(Type.FLOAT)
      case DoubleType => Schema.create(Type.DOUBLE)
      case _: StringType | _: CharType | _: VarcharType => Schema.create(Type.STRING)
      case BinaryType => Schema.create(Type.BYTES)
      case DateType => LogicalTypes.date().addToSchema(Schema.create(Type.INT))
      case TimestampType => LogicalTypes.timestampMicros().addToSchema(Schema.create(Type.LONG))
      case TimestampNTZType => LogicalTypes.localTimestampMicros().addToSchema(Schema.create(Type.LONG))
      case d: DecimalType =>
        val fixed = Schema.createFixed("fixed", null, s"$namespace.$name", fixedSize(d.precision))
        LogicalTypes.decimal(d.precision, d.scale).addToSchema(fixed)
      case s: StructType => recordOf(s, name, namespace, path)
      case ArrayType(element, containsNull) =>
        Schema.createArray(avroOf(element, containsNull, name, namespace, FieldPath.element(path)))
      case MapType(_: StringType, value, valueContainsNull) =>
        Schema.createMap(avroOf(value, valueContainsNull, name, namespace, FieldPath.value(path)))
      case MapType(key, _, _) =>
        throw new AvroConversionException(
          s"${FieldPath.column(path)}: the map's keys are ${key.simpleString}, and Avro maps have string " +
            "keys only. Cast the keys to strings (transform_keys), or make the map an array of structs.")
      case other =>
        throw new AvroConversionException(
          s"${FieldPath.column(path)}: Spark type ${other.simpleString} has no Avro equivalent. Cast it " +
            "to one that has (a string, a number, a timestamp, binary, or a struct, array or map of these).")
    }
    if (nullable && dataType != NullType) Schema.createUnion(Schema.create(Type.NULL), base) else base
  }

  /** The fewest bytes whose two's complement holds every unscaled value of `precision` digits. */
  private[avro] def fixedSize(precision: Int): Int = {
    val largest = java.math.BigInteger.TEN.pow(precision).subtract(java.math.BigInteger.ONE)
    largest.bitLength / 8 + 1
  }

  /** Avro's names: a letter or _, then letters, digits or _ (ASCII only, as the specification says). */
  private def checkName(name: String, what: String): Unit = {
    val valid = name != null && name.nonEmpty && (name.head.isLetter || name.head == '_') &&
      name.forall(c => c < 128 && (c.isLetterOrDigit || c == '_'))
    if (!valid)
      throw new AvroConversionException(
        s"$what: '$name' is no valid Avro name. Avro names are the letters A to Z and a to z, digits and _, " +
          "and do not start with a digit. Rename it (a column with alias or withColumnRenamed: order_id for " +
          "'order id').")
  }
}
