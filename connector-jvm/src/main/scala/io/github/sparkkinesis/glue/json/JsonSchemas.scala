// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.json

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal
import scala.util.Try

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode
import io.github.sparkkinesis.glue.{FieldPath, TypeUnfolding}
import org.apache.spark.sql.types._

/**
 * The Spark type of a JSON Schema document (draft-04 to 2020-12, as producers write them), the type that
 * [[JsonDecoder]] reads records of the schema into:
 *
 *  - `object` with `properties`: a struct of those fields, in the order `properties` lists them; a field is
 *    nullable unless `required` lists it and its type excludes null. `additionalProperties` is then ignored.
 *  - `object` without `properties`: a map of string keys, to the type of `additionalProperties` if it is a
 *    schema, or else to strings holding each value as JSON text (see below).
 *  - `allOf`: its parts (and the properties beside it) merged into one struct, fields in order of appearance;
 *    a part of one type only is that type.
 *  - `integer`: long; `number`: double; `boolean`; `string`: string, date for `format: date`, timestamp for
 *    `format: date-time`; `array`: an array of its `items`' type (JSON text when it has no `items`).
 *  - `type: [T, "null"]`, or `oneOf`/`anyOf` of T and `null`: T, nullable.
 *  - `enum` and `const`: string when the values are strings; long, double or boolean when they are all
 *    integers, numbers or booleans; nullable when one is null.
 *  - local `$ref` (`#/definitions/...`, `#/$defs/...`, any JSON pointer into the document): resolved.
 *  - Anything else that allows values of several JSON types (several types, `oneOf`/`anyOf` of several,
 *    `{}`, `true`, mixed enums): a string holding the value as JSON text, a string's contents unquoted, as
 *    Spark's `from_json` reads a string column.
 *
 * Fails with [[JsonSchemaException]], naming the schema path, for a recursive or non-local `$ref`, a tuple
 * array (`items` as an array, `prefixItems`), an unknown `type`, `allOf` parts of contradicting types, or
 * text that is no JSON object. Validation keywords (`minimum`, `pattern`, `not`, ...) are ignored: records
 * are not validated against the schema.
 *
 * [[fromSqlType]] is the JSON Schema a struct is registered with, which [[sqlType]] maps back to the
 * struct up to JSON's types (see there). [[JsonEncoder]] writes records of a schema by its
 * [[writerType]], which tells apart what [[sqlType]] gives alike: a string, and a value of any JSON type.
 *
 * Stateless and thread-safe; runs on the driver when a schema is fixed.
 */
private[sparkkinesis] object JsonSchemas {

  /** The type a value of any JSON type is read as: its JSON text (see [[JsonDecoder]]). */
  val JsonText: DataType = StringType

  private val mapper = new ObjectMapper()

  /**
   * The Spark type of the JSON Schema `schema`.
   *
   * @throws JsonSchemaException if the schema has none
   */
  def sqlType(schema: String): DataType = erased(writerType(schema))

  /**
   * The JSON Schema (draft-07) of a struct, titled `title`: an object with a property per column, in the
   * columns' order, `required` listing the columns that are not nullable, and a nullable value's type
   * `[T, "null"]`. Integral types are `integer`; float, double and decimal `number`; string, char and
   * varchar `string`, as are date (`format: date`), timestamp (`format: date-time`), timestamp_ntz (a local
   * date-time, no format) and binary (`contentEncoding: base64`); void is `null`; an array has `items`, a
   * map of string keys is an object with `additionalProperties`, a struct an object with `properties`.
   * Objects do not forbid other properties, so that a later version of the schema can add some.
   *
   * [[sqlType]] gives the struct back with these types widened: integral types to long, float and decimal to
   * double, char, varchar, binary and timestamp_ntz to string, void to a nullable string.
   *
   * @throws JsonSchemaException naming the first column JSON cannot hold (a map whose keys are not strings,
   *   a type without a JSON equivalent, two columns of one name)
   */
  def fromSqlType(struct: StructType, title: String): String = {
    val schema = mapper.createObjectNode()
    schema.put("$schema", "http://json-schema.org/draft-07/schema#")
    schema.put("title", title)
    schema.setAll[JsonNode](schemaOf(struct, nullable = false, FieldPath.Root))
    mapper.writeValueAsString(schema)
  }

  /**
   * What [[JsonEncoder]] writes records of the JSON Schema `schema` as: its [[sqlType]], except that where
   * the schema allows a value of any JSON type the type is [[AnyJson]], not a string, and that a field whose
   * property `required` lists has the metadata [[Required]] (when nullable, it is written as null rather than
   * left out). Where the parts of `allOf`, `oneOf` or `anyOf` give one [[sqlType]], it is the narrowest of
   * theirs: a value that fits it fits each part.
   *
   * @throws JsonSchemaException if the schema has no Spark type
   */
  private[json] def writerType(schema: String): DataType = {
    val root =
      try mapper.readTree(schema)
      catch {
        case NonFatal(e) =>
          throw new JsonSchemaException(s"The schema is no JSON document: ${e.getMessage.linesIterator.next()}", e)
      }
    if (root == null || !(root.isObject || root.isBoolean))
      throw new JsonSchemaException("The schema is no JSON Schema: a JSON Schema is a JSON object.")
    if (TypeUnfolding.tooLarge(unfoldedSize(root)))
      throw new JsonSchemaException(TypeUnfolding.refusal("The JSON Schema", "definitions under $ref"))
    new Mapping(root).typed(root, "", Nil).dataType
  }

  /** The node the local `$ref` `pointer` (`#/...`) of the document `root` points to, if there is one. */
  private def target(root: JsonNode, pointer: String): Option[JsonNode] =
    Try(root.at(pointer.substring(1))).toOption.filterNot(_.isMissingNode)

  /** The size of the type of `root`, a local `$ref` counted once per pointer ([[TypeUnfolding]]). */
  private def unfoldedSize(root: JsonNode): Long = {
    def pointer(node: JsonNode): Option[String] =
      Option(node.get("$ref")).filter(_.isTextual).map(_.asText).filter(_.startsWith("#"))
    def objects(node: JsonNode): Iterator[JsonNode] = if (node == null) Iterator.empty else node.elements().asScala
    TypeUnfolding.size(root)(
      pointer,
      node =>
        pointer(node) match {
          case Some(p) => target(root, p).toSeq
          case None =>
            (objects(node.get("properties")) ++ Iterator("items", "additionalProperties").map(node.get) ++
              Iterator("allOf", "oneOf", "anyOf").flatMap(k => objects(node.get(k))))
              .filter(child => child != null && child.isObject)
              .toSeq
        }
    )
  }

  /** Where [[writerType]] takes a value of any JSON type; [[sqlType]] reads it as [[JsonText]]. */
  private[json] val AnyJson: DataType = ObjectType(classOf[JsonNode])

  /** The metadata of a field of [[writerType]] whose property the schema's `required` lists. */
  private[json] val Required: Metadata = new MetadataBuilder().putBoolean("required", true).build()

  private[json] def isRequired(field: StructField): Boolean = field.metadata.contains("required")

  /** The [[sqlType]] of a [[writerType]]: [[AnyJson]] as [[JsonText]], no metadata. */
  private[json] def erased(dataType: DataType): DataType = dataType match {
    case AnyJson => JsonText
    case s: StructType => StructType(s.fields.map(f => StructField(f.name, erased(f.dataType), f.nullable)))
    case ArrayType(element, containsNull) => ArrayType(erased(element), containsNull)
    case MapType(key, value, valueContainsNull) => MapType(key, erased(value), valueContainsNull)
    case other => other
  }

  /**
   * Of two [[writerType]]s of one [[sqlType]], the one a value must fit to fit both: [[AnyJson]] gives way to
   * the other's type, and a field is required when either says so.
   */
  private def narrowest(a: DataType, b: DataType): DataType = (a, b) match {
    case (AnyJson, _) => b
    case (_, AnyJson) => a
    case (StructType(x), StructType(y)) =>
      StructType(x.zip(y).map { case (f, g) =>
        val metadata = if (isRequired(f) || isRequired(g)) Required else Metadata.empty
        StructField(f.name, narrowest(f.dataType, g.dataType), f.nullable, metadata)
      })
    case (ArrayType(x, containsNull), ArrayType(y, _)) => ArrayType(narrowest(x, y), containsNull)
    case (MapType(key, x, valueContainsNull), MapType(_, y, _)) => MapType(key, narrowest(x, y), valueContainsNull)
    case _ => a
  }

  private final case class Typed(dataType: DataType, nullable: Boolean)

  private val Types = Set("object", "array", "string", "integer", "number", "boolean", "null")

  private final class Mapping(root: JsonNode) {

    def typed(node: JsonNode, path: String, refs: List[String]): Typed = {
      if (node.isBoolean) {
        if (node.booleanValue) return Typed(AnyJson, nullable = true)
        throw error(path, "is the schema false, which no value matches", "remove the property from the schema")
      }
      if (!node.isObject) throw error(path, "is no JSON Schema (not an object)", "write a schema object there")
      val ref = node.get("$ref")
      if (ref != null) return followed(ref, path, refs)
      if (node.has("allOf")) return merged(node, path, refs)
      Seq("oneOf", "anyOf").find(node.has) match {
        case Some(keyword) => return alternatives(node.get(keyword), at(path, keyword), refs)
        case None =>
      }
      Option(node.get("const")).map(c => mapper.createArrayNode().add(c)).orElse(Option(node.get("enum"))) match {
        case Some(values) if values.isArray =>
          // Nullable also when the type allows null, whether or not the values list it: producers write both.
          val listed = enumType(values)
          return listed.copy(nullable = listed.nullable || typeNames(node).contains("null"))
        case _ =>
      }
      val declared = node.get("type") match {
        case null => inferred(node)
        case t if t.isTextual || t.isArray => typeNames(node)
        case _ => throw error(path, "has a type that is neither a name nor an array of names", "fix its type")
      }
      declared.find(!Types(_)).foreach { t =>
        throw error(path, s"has the unknown type '$t'", s"use one of ${Types.toSeq.sorted.mkString(", ")}")
      }
      val nullable = declared.contains("null") || declared.isEmpty
      declared.filter(_ != "null").distinct match {
        case Seq(single) => Typed(ofType(single, node, path, refs), nullable)
        case Seq("integer", "number") | Seq("number", "integer") => Typed(DoubleType, nullable)
        case _ => Typed(AnyJson, nullable = true)
      }
    }

    /** The names `type` gives, one or an array of them. */
    private def typeNames(node: JsonNode): Seq[String] = Option(node.get("type")) match {
      case Some(t) if t.isArray => t.elements().asScala.map(_.asText).toSeq
      case Some(t) => Seq(t.asText)
      case None => Nil
    }

    /** The types a schema without `type` allows, from the keywords it has: none for any. */
    private def inferred(node: JsonNode): Seq[String] =
      if (node.has("properties") || node.has("additionalProperties")) Seq("object")
      else if (node.has("items")) Seq("array")
      else Nil

    private def ofType(name: String, node: JsonNode, path: String, refs: List[String]): DataType = name match {
      case "integer" => LongType
      case "number" => DoubleType
      case "boolean" => BooleanType
      case "string" =>
        Option(node.get("format")).map(_.asText) match {
          case Some("date") => DateType
          case Some("date-time") => TimestampType
          case _ => StringType
        }
      case "array" =>
        if (node.has("prefixItems") || Option(node.get("items")).exists(_.isArray))
          throw error(
            path,
            "is a tuple (items given as an array, or prefixItems), which Spark cannot represent",
            "describe the elements with one schema in items, or use an object with named properties"
          )
        Option(node.get("items")) match {
          case Some(items) =>
            val element = typed(items, at(path, "items"), refs)
            ArrayType(element.dataType, element.nullable)
          case None => ArrayType(AnyJson, containsNull = true)
        }
      case _ => objectType(node, path, refs)
    }

    private def objectType(node: JsonNode, path: String, refs: List[String]): DataType =
      Option(node.get("properties")).filter(_.isObject) match {
        case Some(properties) =>
          val required = Option(node.get("required")).toSeq.flatMap(_.elements().asScala.map(_.asText)).toSet
          StructType(properties.properties().asScala.toSeq.map { entry =>
            val name = entry.getKey
            val field = typed(entry.getValue, at(at(path, "properties"), name), refs)
            val metadata = if (required(name)) Required else Metadata.empty
            StructField(name, field.dataType, nullable = field.nullable || !required(name), metadata)
          })
        case None =>
          Option(node.get("additionalProperties")).filter(_.isObject) match {
            case Some(values) =>
              val value = typed(values, at(path, "additionalProperties"), refs)
              MapType(StringType, value.dataType, value.nullable)
            case None => MapType(StringType, AnyJson, valueContainsNull = true)
          }
      }

    private def followed(ref: JsonNode, path: String, refs: List[String]): Typed = {
      val pointer = ref.asText
      if (!pointer.startsWith("#"))
        throw error(
          path,
          s"refers to $pointer, outside this schema",
          "define it under $defs or definitions in the same schema and refer to it as #/$defs/...")
      if (refs.contains(pointer))
        throw error(
          path,
          s"refers to $pointer recursively (${(pointer :: refs).reverse.mkString(" -> ")}): Spark types cannot " +
            "nest without end",
          "bound the nesting, or give the recursive property as an object without properties (a map of JSON text)"
        )
      val found = target(root, pointer).getOrElse {
        throw error(path, s"refers to $pointer, which the schema does not define", "define it")
      }
      typed(found, path, pointer :: refs)
    }

    private def merged(node: JsonNode, path: String, refs: List[String]): Typed = {
      val rest = node.deepCopy[ObjectNode]()
      rest.remove("allOf")
      val own = if (Seq("type", "properties", "$ref").exists(rest.has)) Seq(typed(rest, path, refs)) else Nil
      val parts = own ++ node.get("allOf").elements().asScala.zipWithIndex.map { case (part, i) =>
        typed(part, at(path, s"allOf[$i]"), refs)
      }
      parts.map(p => erased(p.dataType)).distinct match {
        case Seq(_) => Typed(parts.map(_.dataType).reduce(narrowest), parts.forall(_.nullable))
        case types if types.forall(_.isInstanceOf[StructType]) =>
          val fields = parts.flatMap(_.dataType.asInstanceOf[StructType].fields)
          val byName = fields.groupBy(_.name)
          byName.values.find(_.map(f => erased(f.dataType)).distinct.size > 1).foreach { clash =>
            throw error(
              path,
              s"has parts in allOf that give the property ${clash.head.name} different types",
              "give it one type")
          }
          val merged = fields.map(_.name).distinct.map { name =>
            val same = byName(name)
            // Required in one part is required in the whole.
            val metadata = if (same.exists(isRequired)) Required else Metadata.empty
            StructField(name, same.map(_.dataType).reduce(narrowest), same.forall(_.nullable), metadata)
          }
          Typed(StructType(merged), parts.forall(_.nullable))
        case types =>
          throw error(
            path,
            s"has parts in allOf of different types (${types.map(_.simpleString).mkString(", ")})",
            "make every part an object, or give one type")
      }
    }

    private def alternatives(options: JsonNode, path: String, refs: List[String]): Typed = {
      val typedOptions =
        options.elements().asScala.zipWithIndex.map { case (o, i) => typed(o, s"$path[$i]", refs) }.toSeq
      val onlyNull = (o: JsonNode) => Option(o.get("type")).exists(_.asText == "null")
      val nonNull = options.elements().asScala.toSeq.zip(typedOptions).filterNot(p => onlyNull(p._1)).map(_._2)
      val nullable = typedOptions.exists(_.nullable) || nonNull.size < typedOptions.size
      nonNull.map(t => erased(t.dataType)).distinct match {
        case Seq(_) => Typed(nonNull.map(_.dataType).reduce(narrowest), nullable)
        case _ => Typed(AnyJson, nullable = true)
      }
    }

    private def enumType(values: JsonNode): Typed = {
      val all = values.elements().asScala.toSeq
      val nonNull = all.filterNot(_.isNull)
      if (nonNull.forall(_.isTextual)) Typed(StringType, nonNull.size < all.size)
      else if (nonNull.forall(v => v.isIntegralNumber && v.canConvertToLong)) Typed(LongType, nonNull.size < all.size)
      else if (nonNull.forall(_.isNumber)) Typed(DoubleType, nonNull.size < all.size)
      else if (nonNull.forall(_.isBoolean)) Typed(BooleanType, nonNull.size < all.size)
      else Typed(AnyJson, nullable = true)
    }

    private def at(path: String, key: String): String = if (path.isEmpty) key else s"$path.$key"

    private def error(path: String, problem: String, remedy: String): JsonSchemaException = {
      val where = if (path.isEmpty) "The JSON Schema" else s"The JSON Schema at $path"
      new JsonSchemaException(s"$where $problem: $remedy.")
    }
  }

  // ---- Spark to JSON Schema ----

  private def schemaOf(dataType: DataType, nullable: Boolean, path: String): ObjectNode = {
    val node = mapper.createObjectNode()
    def typed(name: String): ObjectNode = {
      if (nullable) node.putArray("type").add(name).add("null") else node.put("type", name)
      node
    }
    dataType match {
      case NullType => node.put("type", "null")
      case BooleanType => typed("boolean")
      case ByteType | ShortType | IntegerType | LongType => typed("integer")
      case FloatType | DoubleType | _: DecimalType => typed("number")
      case _: StringType | _: CharType | _: VarcharType | TimestampNTZType => typed("string")
      case DateType => typed("string").put("format", "date")
      case TimestampType => typed("string").put("format", "date-time")
      case BinaryType => typed("string").put("contentEncoding", "base64")
      case ArrayType(element, containsNull) =>
        typed("array").set[ObjectNode]("items", schemaOf(element, containsNull, FieldPath.element(path)))
      case MapType(_: StringType, value, valueContainsNull) =>
        typed("object")
          .set[ObjectNode]("additionalProperties", schemaOf(value, valueContainsNull, FieldPath.value(path)))
      case MapType(key, _, _) =>
        throw new JsonSchemaException(
          s"${FieldPath.column(path)}: the map's keys are ${key.simpleString}, and JSON objects have string keys " +
            "only. Cast the keys to strings (transform_keys), or make the map an array of structs.")
      case struct: StructType =>
        val properties = typed("object").putObject("properties")
        val required = mapper.createArrayNode()
        struct.fields.foreach { f =>
          val fieldPath = FieldPath.field(path, f.name)
          if (properties.has(f.name))
            throw new JsonSchemaException(
              s"${FieldPath.column(fieldPath)}: the struct has two columns of that name, and a JSON object's " +
                "properties need names of their own. Rename or drop one of them.")
          properties.set[JsonNode](f.name, schemaOf(f.dataType, f.nullable, fieldPath))
          if (!f.nullable) required.add(f.name)
        }
        if (required.size > 0) node.set[JsonNode]("required", required)
        node
      case other =>
        throw new JsonSchemaException(
          s"${FieldPath.column(path)}: Spark type ${other.simpleString} has no JSON Schema equivalent. Cast it to " +
            "one that has (a string, a number, a boolean, a date, a timestamp, binary, or a struct, array or map " +
            "of these).")
    }
  }
}
