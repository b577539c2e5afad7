// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import java.util.UUID

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Reads the Protobuf payloads of one task as the reader's message: the GSR message index checked against
 * the writer version's file ([[GsrMessageIndex]]), then the message's bytes decoded with the reader's type
 * ([[ProtoDecoder]]). The writers' files are parsed once per version and task (the last
 * [[ProtoPayloadReader.MaxWriters]] kept).
 *
 * Runs on executors; not thread-safe (one per task).
 *
 * @throws ProtoSchemaException when the reader's definition cannot be read (it was read on the driver)
 */
private[sparkkinesis] final class ProtoPayloadReader(readerDefinition: String, messageName: String) {

  private val decoder = new ProtoDecoder(ProtoParser.parse(readerDefinition), messageName)

  /** Each writer version's index of the reader's message in its file (-1 if absent), and its message names. */
  private val writers = new java.util.HashMap[UUID, (Int, IndexedSeq[String])]()

  /**
   * The payload's message, written with version `writerId` (`writerVersion` for messages) of definition
   * `writerDefinition`.
   *
   * @throws ProtoDecodeException when the index names another message, or the bytes are no message of the
   *                              reader's type
   */
  def read(
      writerId: UUID,
      writerVersion: Long,
      writerDefinition: => String,
      bytes: Array[Byte],
      offset: Int,
      length: Int): InternalRow = {
    val (expected, names) = writer(writerId, writerVersion, writerDefinition)
    val (index, used) = GsrMessageIndex.read(bytes, offset, length)
    if (index != expected) {
      val named =
        if (index >= 0 && index < names.length) s"message ${names(index)}"
        else s"no message (version $writerVersion has ${names.length})"
      throw new ProtoDecodeException(
        s"A record's message index $index names $named of version $writerVersion, not $messageName, the " +
          "message the reader reads (the option messageName, else the file's first message). Read each message " +
          "type of a schema with its own call, its messageName naming it.")
    }
    decoder.decode(bytes, offset + used, length - used)
  }

  private def writer(id: UUID, version: Long, definition: => String): (Int, IndexedSeq[String]) = {
    var found = writers.get(id)
    if (found == null) {
      val names =
        try GsrMessageIndex.names(ProtoParser.parse(definition))
        catch {
          case e: ProtoSchemaException =>
            throw new ProtoDecodeException(
              s"The record's writer schema, version $version, cannot be read: ${e.getMessage}",
              e)
        }
      if (writers.size >= ProtoPayloadReader.MaxWriters) writers.clear()
      found = (names.indexOf(messageName), names)
      writers.put(id, found)
    }
    found
  }
}

private[sparkkinesis] object ProtoPayloadReader {
  val MaxWriters = 64
}
