// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.zip.DataFormatException

import org.apache.spark.sql.catalyst.expressions.{ExpectsInputTypes, Expression, GenericInternalRow, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * `glue_registry_header(data)`: a record's framing by the AWS Glue Schema Registry, for users who route
 * records by schema themselves: the schema version's id, the compression (`none` or `zlib`) and the payload,
 * inflated. Null for a record the registry did not frame, so that `WHERE glue_registry_header(data) IS
 * NULL` finds them; a compressed payload that does not inflate gives a null payload. Never fails, and asks
 * the registry nothing.
 */
private[sparkkinesis] final case class GlueRegistryHeader(child: Expression)
    extends UnaryExpression
    with ExpectsInputTypes
    with CodegenFallback {

  override def inputTypes: Seq[BinaryType.type] = Seq(BinaryType)

  override def dataType: DataType = GlueRegistryHeader.Type

  override def nullable: Boolean = true

  override def prettyName: String = "glue_registry_header"

  override protected def nullSafeEval(input: Any): Any = {
    val record = input.asInstanceOf[Array[Byte]]
    GlueFraming.read(record) match {
      case Left(_) => null
      case Right(frame) =>
        val payload =
          try {
            val (bytes, offset, length) = GlueFraming.payload(record, frame)
            if (offset == 0 && length == bytes.length) bytes
            else java.util.Arrays.copyOfRange(bytes, offset, offset + length)
          } catch { case _: DataFormatException => null }
        new GenericInternalRow(
          Array[Any](
            UTF8String.fromString(frame.schemaVersionId.toString),
            UTF8String.fromString(frame.compression),
            payload))
    }
  }

  override protected def withNewChildInternal(newChild: Expression): GlueRegistryHeader = copy(child = newChild)
}

private[sparkkinesis] object GlueRegistryHeader {
  val Type: StructType = StructType(
    Seq(
      StructField("schemaVersionId", StringType, nullable = false),
      StructField("compression", StringType, nullable = false),
      StructField("payload", BinaryType, nullable = true)
    ))
}
