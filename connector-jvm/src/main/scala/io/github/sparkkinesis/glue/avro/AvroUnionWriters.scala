// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import io.github.sparkkinesis.glue.FieldPath
import org.apache.avro.Schema
import org.apache.spark.sql.types.{DataType, NullType, StructType}

/**
 * Writes a column as an Avro union (see [[AvroUnion]] for how Spark reads one). The union takes:
 *  - a column that fits one of its branches that are not null: written as the first that fits, in the
 *    union's order (an int column as the int of `["int","long"]`, a long one as its long);
 *  - a struct of `member0`, `member1`, ..., the struct Spark reads the union as: written as the branch of the
 *    one member set (none set is null, when null is a branch);
 *  - null, when null is a branch; a null where it is not fails the record, naming the column.
 * The choice of branch is made once, when the writer is built.
 *
 * Runs on executors, as part of [[AvroWriters]]. Stateless and thread-safe.
 */
private[avro] object AvroUnionWriters {
  import AvroWriters.{describe, hint, mismatch, nonNull, Write}

  def union(schema: Schema, dataType: DataType, nullable: Boolean, path: String): Write = {
    val union = AvroUnion(schema)
    val nullIndex = union.nullIndex
    val writeNull: Write = (out, _, _) => {
      out.writeIndex(nullIndex)
      out.writeNull()
    }
    if (dataType == NullType) {
      if (union.nullable) writeNull
      else throw mismatch(path, s"the column is always null, and the Avro union ${describe(schema)} has no null.")
    } else {
      val write = unionBranch(union, schema, dataType, path)
      if (!nullable) write
      else if (union.nullable)
        (out, from, at) => if (from.isNullAt(at)) writeNull(out, from, at) else write(out, from, at)
      else
        (out, from, at) =>
          if (from.isNullAt(at))
            throw new AvroEncodeException(
              s"${FieldPath.column(path)}: null, and its Avro union ${describe(schema)} has no null branch. " +
                "Replace the nulls (coalesce), drop those rows, or write with a schema version whose union has " +
                "null.")
          else write(out, from, at)
    }
  }

  /** Writes the branch index and the value of a column that is not null. */
  private def unionBranch(union: AvroUnion, schema: Schema, dataType: DataType, path: String): Write = {
    def branchWrite(branch: AvroUnion.Branch, write: Write): Write = (out, from, at) => {
      out.writeIndex(branch.index)
      write(out, from, at)
    }
    val members = union.branches.indices.map(AvroUnion.memberName)
    dataType match {
      case _ if union.kind == AvroUnion.Single =>
        branchWrite(union.branches.head, nonNull(union.branches.head.schema, dataType, path))
      case s: StructType if union.kind == AvroUnion.Members && s.fieldNames.toSeq == members =>
        val writes = union.branches
          .zip(s.fields)
          .zipWithIndex
          .map { case ((branch, member), i) =>
            branchWrite(branch, nonNull(branch.schema, member.dataType, FieldPath.field(path, members(i))))
          }
          .toArray
        val nullable = union.nullable
        (out, from, at) => {
          val row = from.getStruct(at, writes.length)
          var set = 0
          var chosen = -1
          var i = 0
          while (i < writes.length) {
            if (!row.isNullAt(i)) {
              set += 1
              chosen = i
            }
            i += 1
          }
          if (set == 1) writes(chosen)(out, row, chosen)
          else if (set == 0 && nullable) {
            out.writeIndex(union.nullIndex)
            out.writeNull()
          } else {
            val named = members.indices.filterNot(row.isNullAt).map(members)
            throw new AvroEncodeException(
              s"${FieldPath.column(path)}: $set members of the union are set (${named.mkString(", ")}), and a " +
                s"value of an Avro union is exactly one of its branches${if (nullable) " or null" else ""}. Set " +
                "one member and leave the others null.")
          }
        }
      case _ =>
        val fits = union.branches.view.flatMap { branch =>
          try Some(branchWrite(branch, nonNull(branch.schema, dataType, path)))
          catch { case _: AvroConversionException => None }
        }
        fits.headOption.getOrElse {
          throw mismatch(
            path,
            s"a ${dataType.simpleString} column fits no branch of the Avro union ${describe(schema)}. Cast it to " +
              s"the type of one (${union.branches.map(b => hint(b.schema)).mkString(", ")}), or, to choose the " +
              s"branch yourself, to a struct of ${members.mkString(", ")} with one set."
          )
        }
    }
  }
}
