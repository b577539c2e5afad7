// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import org.apache.spark.sql.catalyst.expressions.{ExpectsInputTypes, Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodeGenerator, CodegenContext, ExprCode}
import org.apache.spark.sql.types.{BinaryType, DataType}

/**
 * `from_glue_registry(data, ...)`: decodes records framed by the AWS Glue Schema Registry into values of the
 * reader schema's type ([[GlueDecoding]], fixed when the function was analysed). Null in, null out. Its
 * string forms name the schema and version, never the options (which may hold keys).
 */
private[sparkkinesis] final case class FromGlueRegistry(child: Expression, decoding: GlueDecoding)
    extends UnaryExpression
    with ExpectsInputTypes {

  override def inputTypes: Seq[BinaryType.type] = Seq(BinaryType)

  override def dataType: DataType = decoding.dataType

  override def nullable: Boolean = true

  override def prettyName: String = "from_glue_registry"

  @transient private lazy val decoder = decoding.newDecoder()

  /** The record decoded; called by the generated code as by [[nullSafeEval]]. */
  def decode(record: Array[Byte]): Any = decoder.decode(record)

  override protected def nullSafeEval(input: Any): Any = decode(input.asInstanceOf[Array[Byte]])

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val self = ctx.addReferenceObj("fromGlueRegistry", this)
    nullSafeCodeGen(
      ctx,
      ev,
      record => {
        val decoded = ctx.freshName("decoded")
        s"""Object $decoded = $self.decode($record);
           |if ($decoded == null) {
           |  ${ev.isNull} = true;
           |} else {
           |  ${ev.value} = (${CodeGenerator.boxedType(dataType)}) $decoded;
           |}""".stripMargin
      }
    )
  }

  override def toString: String = s"$prettyName($child, $decoding)"

  override def sql: String = {
    val schema = decoding.options.schema
    s"$prettyName(${child.sql}, '${schema.schemaName}', '${schema.registryName}')"
  }

  override protected def withNewChildInternal(newChild: Expression): FromGlueRegistry = copy(child = newChild)
}
