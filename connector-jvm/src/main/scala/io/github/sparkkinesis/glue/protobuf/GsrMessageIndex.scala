// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

/**
 * The AWS Glue Schema Registry's Protobuf payload, as its serializers write it (awslabs/aws-glue-schema-registry,
 * `ProtobufSerializer`, `ProtobufWireFormatEncoder`, `MessageIndexFinder`; read for this file):
 *
 *  - The schema version's definition is the text of the `.proto` file that declares the record's message
 *    (the serializer registers `message.getDescriptorForType().getFile()` printed as `.proto` text).
 *  - After the registry's 18-byte header, the payload is the message index, an unsigned varint
 *    (protobuf-java's `writeUInt32NoTag`; the encoder's comment says zig-zag, its code does not zig-zag),
 *    then the message's own bytes, to the payload's end (no length prefix).
 *  - The index numbers every message of the file: the top-level ones and all nested ones (a breadth-first
 *    walk of `getNestedTypes()`, which holds the entry messages protoc makes for map fields), sorted by full
 *    name with Java's `String` order, from 0. So a file `package p; message B { message C {} message A {} }`
 *    numbers `p.B` 0, `p.B.A` 1, `p.B.C` 2. Only the file's own messages count: imports are not numbered.
 *  - The official deserializer parses the writer's version's definition, takes the message the index names
 *    in it (nested ones included), and parses the rest as that message (a DynamicMessage, or the generated
 *    class of that name).
 *
 * This connector reads every record as one message type, the reader's ([[ProtoSchemas.recordMessage]] of
 * the reader version). A record is read when the index names, in the file of the version that wrote it, a
 * message of the same full name; the bytes are then read with the reader's type, by field number (see
 * [[ProtoDecoder]]). The index is resolved in the writer's file, not the reader's, because adding a message
 * to a file renumbers the others. A record of another message of the file is invalid for the reader.
 * [[ProtoEncoder]] writes the index of the message it writes in the file of the version it writes with.
 *
 * Stateless and thread-safe.
 */
private[sparkkinesis] object GsrMessageIndex {

  /** The full names of the file's messages, by their index. */
  def names(file: ProtoFile): IndexedSeq[String] = ProtoSchemas.messageIndex(file)

  /**
   * The message index at the start of a payload, and how many bytes it takes.
   *
   * @throws ProtoDecodeException if the payload ends within it, or it is longer than 5 bytes
   */
  def read(bytes: Array[Byte], offset: Int, length: Int): (Int, Int) = {
    var value = 0L
    var i = 0
    while (i < 5) {
      if (i >= length)
        throw new ProtoDecodeException(
          s"A record's Protobuf payload of $length bytes ends within its message index (truncated).")
      val b = bytes(offset + i)
      value |= (b & 0x7fL) << (7 * i)
      i += 1
      if (b >= 0) return (value.toInt, i)
    }
    throw new ProtoDecodeException(
      s"A record's Protobuf payload of $length bytes has a message index longer than 5 bytes.")
  }
}
