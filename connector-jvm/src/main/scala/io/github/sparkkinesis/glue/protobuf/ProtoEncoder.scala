// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import io.github.sparkkinesis.glue.FieldPath
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

/**
 * Writes rows of `struct` (Spark's internal rows) as the registry's Protobuf payloads of message
 * `messageFullName` of `file`, the mirror of [[ProtoPayloadReader]] and [[ProtoDecoder]], without
 * protobuf-java: the GSR message index (an unsigned varint, the message's place in
 * [[GsrMessageIndex.names]] of the file), then the message's bytes as protobuf-java writes the message
 * (fields in the order of their numbers, proto3 zero values left out, packed repeated scalars;
 * [[ProtoWriters]] says what is written how).
 *
 * The constructor checks that the struct fits the message, as [[ProtoWriters]] describes: each column a
 * field of its exact name and of a type that fits the field's, each required (proto2) field a column. The
 * first that does not fails with [[ProtoSchemaException]]: `column order.items[].price: <what is wrong,
 * and what to do>`. A value the message cannot hold (a null where the field holds none, a name the enum
 * lacks, two members of a oneof) fails its record with [[ProtoEncodeException]], never showing the data.
 *
 * Runs on executors, one per task: not thread-safe (it reuses one output buffer, and allocates per record
 * only the array it returns, besides what Spark's getters make: nested rows, arrays and binary values).
 *
 * @throws ProtoSchemaException when the file has no such message of its own, or the struct does not fit it
 */
private[sparkkinesis] final class ProtoEncoder(file: ProtoFile, messageFullName: String, struct: StructType) {

  /** The message's index in the file, as the registry's serializers number it. */
  val messageIndex: Int = GsrMessageIndex.names(file).indexOf(messageFullName)
  if (messageIndex < 0 || !file.allMessages.exists(_.fullName == messageFullName))
    throw new ProtoSchemaException(
      s"The .proto file declares no message $messageFullName (its messages: " +
        s"${file.allMessages.map(_.fullName).mkString(", ")}).")

  private val write = ProtoWriters.message(file, file.message(messageFullName), struct, FieldPath.Root)
  private val out = new ProtoWireWriter

  /**
   * The payload of `row`, a row of `struct` (not null): the message index, then the message.
   *
   * @throws ProtoEncodeException when a value cannot be written (a null in a required field, ...)
   */
  def encode(row: InternalRow): Array[Byte] = {
    out.reset()
    out.uint32(messageIndex)
    write(out, row)
    out.toByteArray
  }
}
