// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import io.github.sparkkinesis.errors.{GlueRegistryErrors, KinesisErrors}
import io.github.sparkkinesis.glue.avro.AvroEncodeException
import io.github.sparkkinesis.glue.json.JsonEncodeException
import io.github.sparkkinesis.glue.protobuf.ProtoEncodeException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

/**
 * How `to_glue_registry` encodes, fixed on the driver when the function is analysed: the options and the
 * schema version rows are written with ([[WriterVersions]] chooses it). Serializable: it travels to
 * executors inside the plan.
 */
private[sparkkinesis] final case class GlueEncoding(options: GlueFunctionOptions, writer: SchemaVersion) {

  /** An encoder of rows of `struct` for one task. */
  def newEncoder(struct: StructType): RowEncoder = new RowEncoder(this, struct)

  override def toString: String =
    s"${writer.registryName}/${writer.schemaName} v${writer.versionNumber} ${writer.dataFormat}" +
      options.messageName.fold("")(name => s" message $name") + (if (options.compress) " zlib" else "")
}

/**
 * Encodes the rows of one task as records framed by the registry: the payload of the writer's version,
 * compressed if the options say so, behind the header naming the version. A row that cannot be encoded
 * fails the task, naming the column. Runs on executors; not thread-safe (one per task).
 */
private[sparkkinesis] final class RowEncoder(encoding: GlueEncoding, struct: StructType) {

  private val writer = encoding.writer

  private val payload =
    PayloadWriter
      .of(writer, struct, encoding.options.messageName)
      .fold(problem => throw WriterVersions.mismatch(writer, problem), identity)

  def encode(row: InternalRow): Array[Byte] = {
    val bytes =
      try payload.write(row)
      catch {
        case e @ (_: AvroEncodeException | _: JsonEncodeException | _: ProtoEncodeException) =>
          throw GlueRegistryErrors.rowUnencodable(
            writer.schemaName,
            writer.registryName,
            writer.versionNumber,
            KinesisErrors.rootMessage(e),
            e)
      }
    GlueFraming.frame(writer.id, bytes, encoding.options.compress)
  }
}
