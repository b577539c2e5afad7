// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import java.io.OutputStream

import io.github.sparkkinesis.glue.FieldPath
import org.apache.avro.io.EncoderFactory
import org.apache.avro.Schema
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

/**
 * Writes rows of `struct` (Spark's internal rows) as bare Avro binary data of the record `schema`: one
 * datum each, no container file, no header.
 *
 * The constructor checks that the struct fits the schema, as [[AvroWriters]] describes: each column has an
 * Avro field of its exact name and a type it fits, each Avro field without a column has a default (which is
 * written), and no column is left over. The first that does not fails with [[AvroConversionException]]:
 * `column order.items[].price: <what is wrong, and what to do>`. A nullable column may feed an Avro field
 * that is not nullable; a null arriving there fails its record with [[AvroEncodeException]], as do values
 * the type cannot hold (a string that is no symbol of an enum, binary of the wrong size for a fixed).
 *
 * Runs on executors, one per task: not thread-safe (it reuses one output buffer).
 */
private[sparkkinesis] final class AvroEncoder(schema: Schema, struct: StructType) {

  if (schema.getType != Schema.Type.RECORD)
    throw new AvroConversionException(
      s"The Avro schema ${schema.getFullName} is a ${schema.getType.getName}, not a record: a struct is written " +
        "as a record. Write with a schema whose top level is a record.")

  private val write = AvroWriters.record(schema, struct, FieldPath.Root)
  private val buffer = new AvroEncoder.Buffer
  private val out = EncoderFactory.get.directBinaryEncoder(buffer, null)

  /**
   * The datum of `row`, a row of `struct` (not null).
   *
   * @throws AvroEncodeException when a value cannot be written (a null where the schema has none, ...)
   */
  def encode(row: InternalRow): Array[Byte] = {
    buffer.reset()
    write(out, row)
    buffer.toByteArray
  }
}

private object AvroEncoder {

  /** A growing byte buffer without ByteArrayOutputStream's locks, emptied for each record. */
  final class Buffer extends OutputStream {
    private var bytes = new Array[Byte](256)
    private var size = 0

    def reset(): Unit = size = 0

    def toByteArray: Array[Byte] = java.util.Arrays.copyOf(bytes, size)

    private def ensure(more: Int): Unit =
      if (size + more > bytes.length) {
        val needed = size.toLong + more
        if (needed > Int.MaxValue - 8) throw new AvroEncodeException("The record takes more than 2 GB.")
        bytes = java.util.Arrays.copyOf(bytes, math.max(needed, math.min(bytes.length * 2L, Int.MaxValue - 8L)).toInt)
      }

    override def write(b: Int): Unit = {
      ensure(1)
      bytes(size) = b.toByte
      size += 1
    }

    override def write(b: Array[Byte], off: Int, len: Int): Unit = {
      ensure(len)
      System.arraycopy(b, off, bytes, size, len)
      size += len
    }
  }
}
