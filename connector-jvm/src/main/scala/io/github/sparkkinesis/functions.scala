// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.glue.{GlueFunctionOptions, GlueFunctions, GlueRegistryHeader}
import org.apache.spark.sql.sparkkinesis.ColumnExpressions
import org.apache.spark.sql.Column

// scalastyle:off object.name
/**
 * The connector's column functions, for any binary column (a Kinesis record's `data`, a Kafka record's
 * `value`): records framed by the AWS Glue Schema Registry, decoded and encoded. They need no session extension; SQL's functions
 * of the same names do (`spark.sql.extensions=io.github.sparkkinesis.KinesisSparkExtensions`).
 *
 * The options (docs/reference/functions.md): where the registry is and as whom to call it (`region`,
 * `endpoint`, and the connector's credential and role options), `schemaVersion`, `dataFormat`; decoding's
 * `mode` (`FAILFAST` or `PERMISSIVE`); encoding's `registerSchema` and `compression`.
 */
object functions {

  /**
   * Decodes records framed by the AWS Glue Schema Registry into the type of schema `schemaName`'s latest
   * version (or the version the option `schemaVersion` names), asked of the registry now. Each record is
   * read with the version its header names (asked once per version and executor) and resolved to that one.
   */
  def from_glue_registry(data: Column, schemaName: String): Column =
    from_glue_registry(data, schemaName, GlueFunctionOptions.DefaultRegistry)

  /** As the other, of registry `registryName`. */
  def from_glue_registry(data: Column, schemaName: String, registryName: String): Column =
    from_glue_registry(data, schemaName, registryName, java.util.Collections.emptyMap[String, String]())

  /** As the other, with options. */
  def from_glue_registry(
      data: Column,
      schemaName: String,
      registryName: String,
      options: java.util.Map[String, String]): Column =
    ColumnExpressions.column(
      GlueFunctions
        .fromGlueRegistry(ColumnExpressions.expression(data), schemaName, registryName, options.asScala.toMap))

  /**
   * Encodes each row of `struct` (a struct column) as a record framed by the AWS Glue Schema Registry, written
   * with schema `schemaName`'s latest version (or the version the option `schemaVersion` names), which the
   * registry is asked for when the query is analysed; with the option `registerSchema`, a struct that does
   * not fit it registers its own schema as a new version. The records are what the registry's deserializers
   * (KCL, Flink, Lambda) and [[from_glue_registry]] read.
   */
  def to_glue_registry(struct: Column, schemaName: String): Column =
    to_glue_registry(struct, schemaName, GlueFunctionOptions.DefaultRegistry)

  /** As the other, of registry `registryName`. */
  def to_glue_registry(struct: Column, schemaName: String, registryName: String): Column =
    to_glue_registry(struct, schemaName, registryName, java.util.Collections.emptyMap[String, String]())

  /** As the other, with options. */
  def to_glue_registry(
      struct: Column,
      schemaName: String,
      registryName: String,
      options: java.util.Map[String, String]): Column =
    ColumnExpressions.column(
      GlueFunctions
        .toGlueRegistry(ColumnExpressions.expression(struct), schemaName, registryName, options.asScala.toMap))

  /**
   * A record's AWS Glue Schema Registry header, as a struct of `schemaVersionId`, `compression` (`none` or
   * `zlib`) and `payload` (inflated), or null if the registry did not frame the record.
   */
  def glue_registry_header(data: Column): Column =
    ColumnExpressions.column(GlueRegistryHeader(ColumnExpressions.expression(data)))
}
