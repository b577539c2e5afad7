// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import scala.jdk.CollectionConverters._

import org.apache.avro.Schema

/**
 * An Avro union as Spark sees it, the one reading of a union that the schema mapping, the decoder and the
 * encoder share. Null among the branches makes the value nullable and is otherwise left out; what remains
 * decides the type:
 *  - nothing: the value is always null ([[AvroUnion.NullOnly]]);
 *  - one branch: that branch's type ([[AvroUnion.Single]]);
 *  - int and long, or float and double: the wider of the two ([[AvroUnion.Widened]]);
 *  - anything else: a struct with one nullable field per branch, `member0`, `member1`, ... in the order of
 *    the branches ([[AvroUnion.Members]]), of which a value sets exactly one.
 * This is the mapping of Spark's own Avro support (`SchemaConverters.toSqlType` with its default options).
 *
 * Immutable and thread-safe.
 *
 * @param nullIndex the index of the null branch in the union, or -1 when it has none
 * @param branches  the other branches, in their order, each with its index in the union
 */
private[avro] final case class AvroUnion(nullIndex: Int, branches: IndexedSeq[AvroUnion.Branch], kind: AvroUnion.Kind) {
  def nullable: Boolean = nullIndex >= 0
}

private[avro] object AvroUnion {

  /** A branch of the union that is not null, and its index among all the union's branches. */
  final case class Branch(index: Int, schema: Schema)

  sealed trait Kind
  case object NullOnly extends Kind
  case object Single extends Kind
  case object Widened extends Kind
  case object Members extends Kind

  /** The name Spark gives the struct field of a union's `i`-th branch that is not null. */
  def memberName(i: Int): String = s"member$i"

  def apply(union: Schema): AvroUnion = {
    val types = union.getTypes.asScala.toIndexedSeq
    val nullIndex = types.indexWhere(_.getType == Schema.Type.NULL)
    val branches = types.zipWithIndex.collect { case (s, i) if s.getType != Schema.Type.NULL => Branch(i, s) }
    val kinds = branches.map(_.schema.getType).toSet
    val kind =
      if (branches.isEmpty) NullOnly
      else if (branches.size == 1) Single
      else if (branches.size == 2 && (kinds == Set(Schema.Type.INT, Schema.Type.LONG) ||
          kinds == Set(Schema.Type.FLOAT, Schema.Type.DOUBLE))) Widened
      else Members
    AvroUnion(nullIndex, branches, kind)
  }
}
