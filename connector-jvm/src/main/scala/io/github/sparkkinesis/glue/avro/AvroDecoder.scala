// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import scala.util.control.NonFatal

import io.github.sparkkinesis.glue.FieldPath
import org.apache.avro.{AvroTypeException, Schema}
import org.apache.avro.io.{Decoder, DecoderFactory, ResolvingDecoder}
import org.apache.spark.sql.types.DataType

/**
 * Reads bare Avro binary data (one datum: no container file, no header) into Spark's internal values of
 * `dataType`, the type [[AvroSchemas.sqlType]] gives `reader` (a type that allows null in more places is
 * taken too). Data written with another schema is resolved to `reader` by Avro's schema resolution rules,
 * as Avro's `GenericDatumReader(writer, reader)` would: fields the reader lacks are skipped, fields only the
 * reader has take their defaults, int is read as long, float or double, an enum symbol by its name, a union
 * branch by its best match.
 *
 * [[decode]] gives the value of `dataType` (an InternalRow when `reader` is a record, as the registry's
 * schemas are) as `Any`, the form a Catalyst expression returns: one method for any reader schema, with no
 * cast of its own. Bytes after the datum are ignored, as Avro's decoders ignore them.
 *
 * Bytes that are no datum of the writer schema fail with [[AvroDecodeException]], whatever is wrong with
 * them: no raw IndexOutOfBounds or EOF leaks out, and no length read from them is allocated before it is
 * checked against the record's size ([[BoundedBinaryDecoder]]).
 *
 * Runs on executors, one per task: not thread-safe. It keeps what reading the last
 * [[AvroDecoder.WriterSchemas]] writer schemas needs (Avro's resolution of each to the reader, looked up by
 * the writer schema's identity first, then by equality) and one input decoder reused for every record.
 *
 * @throws AvroConversionException when `dataType` is not `reader`'s type
 */
private[sparkkinesis] final class AvroDecoder(reader: Schema, dataType: DataType) {

  private val expected = AvroSchemas.sqlType(reader)
  if (!AvroSchemas.holds(dataType, expected))
    throw new AvroConversionException(
      s"The Spark type ${dataType.simpleString} is not that of the reader schema ${reader.getFullName}, " +
        s"${expected.simpleString}: read it as AvroSchemas.sqlType gives it.")

  private val read = AvroReaders.of(reader, FieldPath.Root)
  private val input = new BoundedBinaryDecoder

  /** Each writer schema seen lately, and the decoder that reads its data as the reader's (LRU). */
  private val decoders = new java.util.LinkedHashMap[Schema, Decoder](16, 0.75f, true) {
    override def removeEldestEntry(eldest: java.util.Map.Entry[Schema, Decoder]): Boolean =
      size > AvroDecoder.WriterSchemas
  }

  /**
   * The value of the datum in `length` bytes of `bytes` from `offset`, written with `writer`.
   *
   * @throws AvroDecodeException when the bytes are no datum of `writer`, or one the reader cannot take
   */
  def decode(writer: Schema, bytes: Array[Byte], offset: Int, length: Int): Any = {
    val decoder = decoderFor(writer)
    input.reset(bytes, offset, length)
    try
      decoder match {
        case resolving: ResolvingDecoder =>
          resolving.configure(input)
          val value = read(resolving)
          resolving.drain()
          value
        case plain => read(plain)
      }
    catch {
      case failure: AvroReaders.ReadFailure => throw error(writer, length, failure.path, failure.getCause)
      case NonFatal(e) => throw error(writer, length, "", e)
    }
  }

  private def decoderFor(writer: Schema): Decoder = {
    var decoder = decoders.get(writer)
    if (decoder == null) {
      decoder =
        if (writer == reader) input
        else
          try DecoderFactory.get.resolvingDecoder(writer, reader, input)
          catch {
            case NonFatal(e) =>
              throw new AvroConversionException(
                s"The writer schema ${writer.getFullName} cannot be resolved to the reader schema " +
                  s"${reader.getFullName}: ${e.getMessage}",
                e)
          }
      decoders.put(writer, decoder)
    }
    decoder
  }

  private def error(writer: Schema, length: Int, path: String, cause: Throwable): AvroDecodeException = {
    val record = s"A record of $length bytes written with the schema ${writer.getFullName}"
    val where = if (path.isEmpty) "" else s" (reading ${FieldPath.avroField(path)})"
    val message = cause match {
      case e: AvroTypeException =>
        s"$record cannot be read with the reader schema ${reader.getFullName}$where: ${e.getMessage}. Avro's " +
          "schema resolution has no value of the reader schema for this one: read it with a reader schema " +
          "whose enums and unions take every value written, or check that the record was written with the " +
          "schema it names."
      case e =>
        val what = e match {
          case malformed: BoundedBinaryDecoder.Malformed => malformed.getMessage
          case other => s"${other.getClass.getSimpleName}: ${other.getMessage}"
        }
        s"$record is no valid Avro of that schema$where: $what. The record is truncated or corrupt, or was " +
          "written with another schema than the one it names."
    }
    new AvroDecodeException(message, cause)
  }
}

private[sparkkinesis] object AvroDecoder {

  /** How many writer schemas a decoder keeps the resolution of: more than a stream has versions in use. */
  val WriterSchemas: Int = 16
}
