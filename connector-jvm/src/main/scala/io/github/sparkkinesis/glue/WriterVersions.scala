// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import io.github.sparkkinesis.errors.{GlueRegistryErrors, GlueRegistryException, KinesisIllegalArgumentException}
import org.apache.spark.sql.types.StructType

/**
 * Chooses the schema version `to_glue_registry` writes a struct with, on the driver, when the function is
 * analysed:
 *  - the version `schemaVersion` names (the latest by default), if the struct fits it;
 *  - else, with `registerSchema`, the version whose definition is the struct's own schema: found by its
 *    definition, or registered (the registry checks it against the schema's compatibility rules), or, when
 *    the schema does not exist, created with it as its first version (in `dataFormat`; by default AVRO,
 *    or PROTOBUF when the option messageName names a message);
 *  - else the query fails, naming the first column that does not fit.
 * Stateless; each call asks the registry: once when the struct fits the version, up to four times otherwise.
 */
private[sparkkinesis] object WriterVersions {

  def choose(options: GlueFunctionOptions, struct: StructType): SchemaVersion = {
    val client = SchemaVersions.client(options.registry)
    val schema = options.schema
    val named =
      try Some(client.schemaVersion(schema, options.version))
      catch {
        case e: GlueRegistryException if e.kind == GlueRegistryException.NotFound && options.registerSchema => None
      }
    named match {
      case Some(version) =>
        GlueFunctions.checkUsable(GlueFunctions.ToName, options, version)
        PayloadWriter.refusal(version, options.messageName).foreach { problem =>
          throw GlueRegistryErrors.schemaUnusable(
            GlueFunctions.ToName,
            schema.schemaName,
            schema.registryName,
            version.versionNumber.toString,
            version.dataFormat,
            problem)
        }
        PayloadWriter.of(version, struct, options.messageName) match {
          case Right(_) => version
          case Left(problem) if !options.registerSchema =>
            throw mismatch(version, problem)
          case Left(_) => registered(client, options, struct, version.dataFormat)
        }
      case None =>
        val format = defaultFormat(options)
        try client.createSchema(schema, format, definition(options, struct, format))
        catch {
          case e: GlueRegistryException if e.kind == GlueRegistryException.AlreadyExists =>
            // Another query created it since: register with it as any other.
            registered(client, options, struct, format)
        }
    }
  }

  /** The version of the struct's own schema: found by its definition, else registered. */
  private def registered(
      client: GlueRegistryApi,
      options: GlueFunctionOptions,
      struct: StructType,
      format: String): SchemaVersion = {
    val own = definition(options, struct, format)
    val version = client
      .schemaByDefinition(options.schema, own)
      // Found by its definition, its number unknown: asked by its id, which says it.
      .map(found => client.schemaVersion(found.id))
      .getOrElse(client.registerSchemaVersion(options.schema, own))
    GlueFunctions.checkUsable(GlueFunctions.ToName, options, version)
    PayloadWriter.of(version, struct, options.messageName).left.foreach { problem =>
      throw mismatch(version, problem)
    }
    version
  }

  /** The format a schema is created in: the option dataFormat's; else PROTOBUF for a messageName, else AVRO. */
  def defaultFormat(options: GlueFunctionOptions): String =
    options.dataFormat.getOrElse(if (options.messageName.isDefined) "PROTOBUF" else "AVRO")

  /** The struct does not fit `version`: `problem` names the column. */
  def mismatch(version: SchemaVersion, problem: String): KinesisIllegalArgumentException =
    GlueRegistryErrors.structMismatch(
      version.schemaName,
      version.registryName,
      version.versionNumber,
      version.dataFormat,
      problem)

  private def definition(options: GlueFunctionOptions, struct: StructType, format: String): String =
    PayloadWriter
      .definitionOf(format, struct, options.schema, options.messageName)
      .fold(
        problem =>
          throw GlueRegistryErrors.schemaUnusable(
            GlueFunctions.ToName,
            options.schema.schemaName,
            options.schema.registryName,
            "to register",
            format,
            s"the struct has no $format schema: $problem"),
        identity
      )
}
