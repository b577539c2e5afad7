// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import io.github.sparkkinesis.glue.avro.{AvroConversionException, AvroEncoder, AvroSchemas}
import io.github.sparkkinesis.glue.json.{JsonEncoder, JsonSchemaException, JsonSchemas}
import io.github.sparkkinesis.glue.protobuf.{ProtoEncoder, ProtoParser, ProtoSchemaException, ProtoSchemas}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

/** Writes the rows of one task as payloads of one schema version. Not thread-safe. */
private[sparkkinesis] trait PayloadWriter {

  /**
   * The payload of `row` (not null), without the registry's header.
   *
   * @throws io.github.sparkkinesis.glue.avro.AvroEncodeException when a value cannot be written as Avro (a
   *                                                               null where the schema allows none, ...)
   * @throws io.github.sparkkinesis.glue.json.JsonEncodeException as JSON (a null, a NaN, ...)
   * @throws io.github.sparkkinesis.glue.protobuf.ProtoEncodeException as Protobuf (a null in a required
   *                                                                   field, a name an enum lacks, ...)
   */
  def write(row: InternalRow): Array[Byte]
}

/**
 * The data formats of the registry as `to_glue_registry` writes them: whether a struct fits a version, and
 * the definition of a struct's own schema, to register it. Stateless; runs on the driver (the checks, when
 * the function is analysed) and on executors (the writers, one per task).
 */
private[sparkkinesis] object PayloadWriter {

  /** The data formats it writes. */
  val Formats: Set[String] = Set("AVRO", "JSON", "PROTOBUF")

  /**
   * Why no struct can be written with `version`, if none can, as a phrase: a format it does not write, a
   * `.proto` file it cannot read, or one without the message `messageName` names (the option messageName;
   * the file's first message when None).
   */
  def refusal(version: SchemaVersion, messageName: Option[String]): Option[String] =
    if (!Formats.contains(version.dataFormat)) Some(unwritten(version.dataFormat))
    else if (version.dataFormat != "PROTOBUF") None
    else
      try {
        ProtoSchemas.recordMessage(ProtoParser.parse(version.definition), messageName)
        None
      } catch { case e: ProtoSchemaException => Some(e.getMessage) }

  /**
   * A writer of rows of `struct` as payloads of `version` (of its message `messageName`, for Protobuf), or
   * why the struct does not fit the version, as a phrase naming the column (`column order.items[].price:
   * ...`) and what to do.
   */
  def of(version: SchemaVersion, struct: StructType, messageName: Option[String]): Either[String, PayloadWriter] =
    version.dataFormat match {
      case "AVRO" =>
        try {
          val encoder = new AvroEncoder(AvroFormat.parse(version.definition), struct)
          Right(row => encoder.encode(row))
        } catch { case e: AvroConversionException => Left(e.getMessage) }
      case "JSON" =>
        try {
          val encoder = new JsonEncoder(version.definition, struct)
          Right(row => encoder.encode(row))
        } catch { case e: JsonSchemaException => Left(e.getMessage) }
      case "PROTOBUF" =>
        try {
          val file = ProtoParser.parse(version.definition)
          val encoder = new ProtoEncoder(file, ProtoSchemas.recordMessage(file, messageName).fullName, struct)
          Right(row => encoder.encode(row))
        } catch { case e: ProtoSchemaException => Left(e.getMessage) }
      case _ => Left(refusal(version, messageName).get)
    }

  /**
   * The definition of `struct`'s own schema in `dataFormat`, for registering it as a version of `schema`, or
   * why the struct has none in that format, as a phrase. An Avro record is named after the schema (its
   * characters that Avro names do not allow replaced by `_`); a JSON Schema (draft-07) takes it as its title;
   * a `.proto` file (proto3) declares the message `messageName` names (`shop.Order`: message `Order` of
   * package `shop`), or one named after the schema as an Avro record is.
   */
  def definitionOf(
      dataFormat: String,
      struct: StructType,
      schema: SchemaRef,
      messageName: Option[String]): Either[String, String] =
    dataFormat match {
      case "AVRO" =>
        try Right(AvroSchemas.fromSqlType(struct, identifier(schema.schemaName), null).toString)
        catch { case e: AvroConversionException => Left(e.getMessage) }
      case "JSON" =>
        try Right(JsonSchemas.fromSqlType(struct, schema.schemaName))
        catch { case e: JsonSchemaException => Left(e.getMessage) }
      case "PROTOBUF" =>
        try Right(ProtoSchemas.fromSqlType(struct, messageName.getOrElse(identifier(schema.schemaName))))
        catch { case e: ProtoSchemaException => Left(e.getMessage) }
      case other => Left(unwritten(other))
    }

  private def unwritten(format: String): String =
    s"to_glue_registry does not write the $format format (${Formats.toSeq.sorted.mkString(", ")} only)"

  /** A name Avro and Protobuf allow: letters, digits and `_`, not starting with a digit. */
  private[glue] def identifier(name: String): String = {
    val replaced = name.map(c => if (c.isLetterOrDigit && c < 128 || c == '_') c else '_')
    if (replaced.isEmpty || replaced.head.isDigit) "_" + replaced else replaced
  }
}
