// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import io.github.sparkkinesis.glue.avro.{AvroConversionException, AvroEncoder, AvroSchemas}
import io.github.sparkkinesis.glue.json.{JsonEncoder, JsonSchemaException, JsonSchemas}
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
  val Formats: Set[String] = Set("AVRO", "JSON")

  /** Why it cannot write `format`, if it cannot, as a phrase. */
  def refusal(format: String): Option[String] =
    if (Formats.contains(format)) None
    else
      Some(s"to_glue_registry does not write the $format format yet (${Formats.toSeq.sorted.mkString(" and ")} only)")

  /**
   * A writer of rows of `struct` as payloads of `version`, or why the struct does not fit the version, as a
   * phrase naming the column (`column order.items[].price: ...`) and what to do.
   */
  def of(version: SchemaVersion, struct: StructType): Either[String, PayloadWriter] = version.dataFormat match {
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
    case other => Left(refusal(other).get)
  }

  /**
   * The definition of `struct`'s own schema in `dataFormat`, for registering it as a version of `schema`, or
   * why the struct has none in that format, as a phrase. An Avro record is named after the schema (its
   * characters that Avro names do not allow replaced by `_`); a JSON Schema (draft-07) takes it as its title.
   */
  def definitionOf(dataFormat: String, struct: StructType, schema: SchemaRef): Either[String, String] =
    dataFormat match {
      case "AVRO" =>
        try Right(AvroSchemas.fromSqlType(struct, avroName(schema.schemaName), null).toString)
        catch { case e: AvroConversionException => Left(e.getMessage) }
      case "JSON" =>
        try Right(JsonSchemas.fromSqlType(struct, schema.schemaName))
        catch { case e: JsonSchemaException => Left(e.getMessage) }
      case other => Left(refusal(other).get)
    }

  /** A name Avro allows: letters, digits and `_`, not starting with a digit. */
  private[glue] def avroName(name: String): String = {
    val replaced = name.map(c => if (c.isLetterOrDigit && c < 128 || c == '_') c else '_')
    if (replaced.isEmpty || replaced.head.isDigit) "_" + replaced else replaced
  }
}
