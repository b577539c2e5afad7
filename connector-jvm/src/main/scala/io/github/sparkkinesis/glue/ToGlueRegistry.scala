// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import io.github.sparkkinesis.errors.KinesisErrors
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{BinaryType, DataType, StructType}

/**
 * `to_glue_registry(struct, ...)`: encodes each row of a struct column as a record framed by the AWS Glue
 * Schema Registry, of the schema version its [[GlueEncodingCall]] chooses when the query is analysed (the
 * struct's type is known only then). Null in, null out. Its string forms name the schema, never the
 * options (which may hold keys).
 */
private[sparkkinesis] final case class ToGlueRegistry(child: Expression, call: GlueEncodingCall)
    extends UnaryExpression {

  override def dataType: DataType = BinaryType

  override def nullable: Boolean = child.nullable

  override def prettyName: String = GlueFunctions.ToName

  /** Chooses the version on the driver, at analysis: a struct that fits none fails the query here. */
  override def checkInputDataTypes(): TypeCheckResult = {
    encoding
    TypeCheckResult.TypeCheckSuccess
  }

  private def struct: StructType = child.dataType match {
    case struct: StructType => struct
    case other =>
      throw KinesisErrors.functionArguments(
        prettyName,
        GlueFunctions.ToSignature,
        s"it encodes a struct column, and ${child.sql} is of type ${other.simpleString}: make one with " +
          "struct(...), or name the columns with struct(col(\"*\"))"
      )
  }

  /** How rows are encoded: the version chosen (once per call, whichever copy of this expression asks). */
  def encoding: GlueEncoding = call.encoding(struct)

  @transient private lazy val encoder = encoding.newEncoder(struct)

  /** The row encoded; called by the generated code as by [[nullSafeEval]]. */
  def encode(row: InternalRow): Array[Byte] = encoder.encode(row)

  override protected def nullSafeEval(input: Any): Any = encode(input.asInstanceOf[InternalRow])

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val self = ctx.addReferenceObj("toGlueRegistry", this)
    nullSafeCodeGen(ctx, ev, row => s"${ev.value} = $self.encode($row);")
  }

  override def toString: String = s"$prettyName($child, $call)"

  override def sql: String = {
    val schema = call.options.schema
    s"$prettyName(${child.sql}, '${schema.schemaName}', '${schema.registryName}')"
  }

  override protected def withNewChildInternal(newChild: Expression): ToGlueRegistry = copy(child = newChild)
}

/**
 * One call of `to_glue_registry`, as the user wrote it (its options), and the schema version chosen for it
 * ([[WriterVersions]]) once the struct's type is known: at analysis, on the driver. Every copy of the
 * expression (the analyser and the optimiser copy it as they rewrite the plan) shares this object, so the
 * registry is asked once per call, and the choice travels with the plan to the executors. A new call (a new
 * query) chooses again, and so sees versions registered since. Thread-safe.
 */
private[sparkkinesis] final class GlueEncodingCall(val options: GlueFunctionOptions) extends Serializable {

  /** The struct's columns (its catalog string, which nullability does not change) and the version chosen. */
  private var chosen: Option[(String, GlueEncoding)] = None

  /** The encoding of rows of `struct`; chosen now if it was not yet for columns of these names and types. */
  def encoding(struct: StructType): GlueEncoding = synchronized {
    val columns = struct.catalogString
    chosen.collect { case (c, encoding) if c == columns => encoding }.getOrElse {
      val encoding = GlueEncoding(options, WriterVersions.choose(options, struct))
      chosen = Some(columns -> encoding)
      encoding
    }
  }

  override def toString: String = synchronized {
    chosen.fold(s"${options.schema.registryName}/${options.schema.schemaName}")(_._2.toString)
  }
}
