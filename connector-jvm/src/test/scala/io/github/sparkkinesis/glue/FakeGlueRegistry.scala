// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.UUID

import scala.collection.mutable

import io.github.sparkkinesis.errors.{GlueRegistryErrors, GlueRegistryException}

/**
 * A registry in memory, for the functions' unit tests: schemas of versions added by the test, every call
 * counted. Thread-safe.
 */
final class FakeGlueRegistry(account: String = "123456789012", region: String = "us-east-1") extends GlueRegistryApi {

  private val versions = mutable.LinkedHashMap.empty[UUID, SchemaVersion]
  private val calls = mutable.ArrayBuffer.empty[String]

  /** Adds the next version of `schema`, and returns it. */
  def add(schema: SchemaRef, format: String, definition: String): SchemaVersion = synchronized {
    val arn = s"arn:aws:glue:$region:$account:schema/${schema.registryName}/${schema.schemaName}"
    val number = versions.values.count(_.schemaArn == arn) + 1L
    val version = SchemaVersion(UUID.randomUUID(), arn, format, definition, number, "AVAILABLE")
    versions(version.id) = version
    version
  }

  /** Forgets a version, as if it had never been registered. */
  def remove(id: UUID): Unit = synchronized(versions.remove(id))

  /** The calls made, as `Operation(argument)`, in order. */
  def made: Seq[String] = synchronized(calls.toList)

  def schemaVersion(id: UUID): SchemaVersion = synchronized {
    calls += s"GetSchemaVersion($id)"
    versions.getOrElse(id, throw notFound(s"schema version $id"))
  }

  def schemaVersion(schema: SchemaRef, version: Option[Long]): SchemaVersion = synchronized {
    calls += s"GetSchemaVersion(${schema.registryName}/${schema.schemaName}, ${version.getOrElse("latest")})"
    val all = versions.values.filter(v => v.registryName == schema.registryName && v.schemaName == schema.schemaName)
    version
      .fold(all.lastOption)(n => all.find(_.versionNumber == n))
      .getOrElse(throw notFound(s"version ${version.getOrElse("latest")} of ${schema.schemaName}"))
  }

  def schemaByDefinition(schema: SchemaRef, definition: String): Option[SchemaVersion] = synchronized {
    calls += s"GetSchemaByDefinition(${schema.registryName}/${schema.schemaName})"
    versions.values.find(v => v.schemaName == schema.schemaName && v.definition == definition)
  }

  def registerSchemaVersion(schema: SchemaRef, definition: String): SchemaVersion =
    add(schema, schemaVersion(schema, None).dataFormat, definition)

  def createSchema(schema: SchemaRef, dataFormat: String, definition: String): SchemaVersion =
    add(schema, dataFormat, definition)

  def close(): Unit = ()

  private def notFound(what: String): GlueRegistryException =
    GlueRegistryErrors.notFound("a registry in memory", "GetSchemaVersion", what, "not found", "", null)
}
