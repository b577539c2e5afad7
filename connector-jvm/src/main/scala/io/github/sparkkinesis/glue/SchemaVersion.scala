// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.UUID

/**
 * A version of a schema of the Glue Schema Registry: the UUID a framed record carries in its header, the
 * schema it belongs to, and its definition. Immutable and serializable.
 *
 * @param schemaArn     `arn:aws:glue:REGION:ACCOUNT:schema/REGISTRY/SCHEMA`
 * @param dataFormat    AVRO, JSON or PROTOBUF
 * @param definition    the schema's text: Avro schema JSON, a JSON Schema, or a `.proto` file
 * @param versionNumber from 1; [[SchemaVersion.UnknownNumber]] when the call that found it does not say
 *                      (GetSchemaByDefinition)
 * @param status        AVAILABLE, PENDING, FAILURE or DELETING
 */
private[sparkkinesis] final case class SchemaVersion(
    id: UUID,
    schemaArn: String,
    dataFormat: String,
    definition: String,
    versionNumber: Long,
    status: String) {

  /** The schema, by its registry's name and its own, as its ARN names them. */
  def schema: SchemaRef = SchemaVersion.schemaOf(schemaArn)

  def registryName: String = schema.registryName

  def schemaName: String = schema.schemaName

  def available: Boolean = status == SchemaVersion.Available

  /** Without the definition, which can be long (up to 170 KB), so that a log line stays one line. */
  override def toString: String =
    s"SchemaVersion($id, $schemaArn, $dataFormat, version $versionNumber, $status, ${definition.length} characters)"
}

private[sparkkinesis] object SchemaVersion {

  /** The version number of a version found by its definition: GetSchemaByDefinition does not say it. */
  val UnknownNumber = 0L

  val Available = "AVAILABLE"
  val Pending = "PENDING"
  val Failure = "FAILURE"

  /**
   * The registry and schema an ARN names (`arn:PARTITION:glue:REGION:ACCOUNT:schema/REGISTRY/SCHEMA`).
   *
   * @throws IllegalArgumentException if it is no schema's ARN
   */
  def schemaOf(arn: String): SchemaRef = {
    val parts = arn.split(":", 6)
    val resource = if (parts.length == 6 && parts(2) == "glue") parts(5).split("/", -1) else Array.empty[String]
    resource match {
      case Array("schema", registry, schema) if registry.nonEmpty && schema.nonEmpty => SchemaRef(registry, schema)
      case _ =>
        throw new IllegalArgumentException(
          s"'$arn' is not the ARN of a Glue schema: arn:aws:glue:REGION:ACCOUNT:schema/REGISTRY/SCHEMA")
    }
  }
}
