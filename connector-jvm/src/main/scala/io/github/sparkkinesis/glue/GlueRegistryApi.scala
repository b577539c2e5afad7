// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.UUID

/**
 * The few calls of the AWS Glue Schema Registry the connector makes, behind a trait so that tests and callers
 * can use fakes; [[GlueRegistryClient.create]] makes the one that calls Glue. Used on the driver and on
 * executors; implementations are thread-safe, and `close()` is idempotent.
 *
 * Every method throws a `errors.GlueRegistryException` when it fails, whose kind says how: NotFound,
 * AccessDenied (credentials included), Unreachable (after a few attempts), Refused, AlreadyExists,
 * NotAvailable. Its message names Glue's endpoint and region and the schema or version, never a secret.
 *
 * IAM: decoding needs glue:GetSchemaVersion; encoding glue:GetSchemaByDefinition; registering also
 * glue:RegisterSchemaVersion, glue:GetSchemaVersion and glue:CreateSchema. Each method says what it calls.
 */
private[sparkkinesis] trait GlueRegistryApi extends AutoCloseable {

  /** The version with this id, as a framed record's header names it (GetSchemaVersion by SchemaVersionId). */
  def schemaVersion(id: UUID): SchemaVersion

  /** Version `version` of `schema`, or its latest when None (GetSchemaVersion by SchemaId and number). */
  def schemaVersion(schema: SchemaRef, version: Option[Long]): SchemaVersion

  /**
   * The version of `schema` with this definition (GetSchemaByDefinition), its number unknown
   * ([[SchemaVersion.UnknownNumber]]); None when the registry has none: Glue says EntityNotFoundException
   * alike when the schema or its registry does not exist.
   */
  def schemaByDefinition(schema: SchemaRef, definition: String): Option[SchemaVersion]

  /**
   * Registers `definition` as a version of `schema` (RegisterSchemaVersion; Glue returns the version that
   * has it when there is one already) and waits, a bounded time, while it is PENDING (GetSchemaVersion).
   * Fails NotAvailable when the registry fails it (it breaks the schema's compatibility) or it stays PENDING,
   * NotFound when the schema does not exist.
   */
  def registerSchemaVersion(schema: SchemaRef, definition: String): SchemaVersion

  /**
   * Creates `schema` in its registry, with `definition` as its first version and the registry's default
   * compatibility, BACKWARD (CreateSchema; GetSchemaVersion only while that version is PENDING). Fails
   * AlreadyExists when the schema exists, NotFound when the registry does not.
   *
   * @param dataFormat AVRO, JSON or PROTOBUF
   */
  def createSchema(schema: SchemaRef, dataFormat: String, definition: String): SchemaVersion
}
