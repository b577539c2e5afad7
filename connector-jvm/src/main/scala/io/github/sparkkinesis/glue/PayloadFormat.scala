// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import io.github.sparkkinesis.glue.avro.{AvroDecodeException, AvroDecoder, AvroSchemas}
import io.github.sparkkinesis.glue.json.{JsonDecoder, JsonSchemas}
import io.github.sparkkinesis.glue.protobuf.{ProtoParser, ProtoPayloadReader, ProtoSchemas}
import org.apache.avro.{Schema, SchemaParseException}
import org.apache.spark.sql.types.DataType

/**
 * A data format of the registry, as `from_glue_registry` reads it: the Spark type of the reader schema,
 * fixed on the driver, and the reading of payloads on executors. Serializable, as the schema's text.
 */
private[sparkkinesis] sealed trait PayloadFormat extends Serializable {

  /** The Spark type records decode to. */
  def dataType: DataType

  /** A reader for one task. */
  def newReader(): PayloadReader
}

/** Reads the payloads of one task, each resolved to the reader schema. Not thread-safe. */
private[sparkkinesis] trait PayloadReader {

  /** The payload's value, of the format's `dataType`, written with schema version `writer`. */
  def read(writer: SchemaVersion, bytes: Array[Byte], offset: Int, length: Int): Any
}

private[sparkkinesis] object PayloadFormat {

  /**
   * The format of a reader schema version, or why it cannot be read, as a phrase. Protobuf records are read
   * as the message `messageName` names (the option messageName), or the file's first message.
   *
   * @throws io.github.sparkkinesis.glue.avro.AvroConversionException if its Avro schema has no Spark type
   * @throws io.github.sparkkinesis.glue.json.JsonSchemaException if its JSON Schema has no Spark type
   * @throws io.github.sparkkinesis.glue.protobuf.ProtoSchemaException if its .proto file cannot be read, or
   *                                                                   has no message `messageName`, or its
   *                                                                   message has no Spark type
   */
  def of(reader: SchemaVersion, messageName: Option[String] = None): Either[String, PayloadFormat] =
    reader.dataFormat match {
      case "AVRO" => Right(AvroFormat(reader.definition, AvroSchemas.sqlType(AvroFormat.parse(reader.definition))))
      case "JSON" => Right(JsonFormat(reader.definition, JsonSchemas.sqlType(reader.definition)))
      case "PROTOBUF" =>
        val file = ProtoParser.parse(reader.definition)
        val message = ProtoSchemas.recordMessage(file, messageName).fullName
        Right(ProtobufFormat(reader.definition, message, ProtoSchemas.sqlType(file, message)))
      case other => Left(s"from_glue_registry does not read the $other format yet (AVRO, JSON and PROTOBUF only)")
    }
}

/**
 * Avro: each payload a bare datum of the writer's schema, resolved to the reader's by Avro's rules (a field
 * the writer lacks takes its default, one the reader lacks is skipped, int widens to long, ...).
 */
private[sparkkinesis] final case class AvroFormat(readerDefinition: String, dataType: DataType) extends PayloadFormat {

  def newReader(): PayloadReader = new PayloadReader {
    private val decoder = new AvroDecoder(AvroFormat.parse(readerDefinition), dataType)
    // The writers' schemas parsed, by version: a task meets a few, and the same ones record after record.
    private val writers = new java.util.HashMap[java.util.UUID, Schema]()

    def read(writer: SchemaVersion, bytes: Array[Byte], offset: Int, length: Int): Any = {
      var schema = writers.get(writer.id)
      if (schema == null) {
        if (writers.size >= AvroFormat.MaxWritersPerTask) writers.clear()
        schema =
          try AvroFormat.parse(writer.definition)
          catch {
            case e: SchemaParseException =>
              // Without its cause: the error shows the root cause's message, and this one says what it is.
              throw new AvroDecodeException(s"the version's definition cannot be read: ${e.getMessage}", null)
          }
        writers.put(writer.id, schema)
      }
      decoder.decode(schema, bytes, offset, length)
    }
  }
}

private[sparkkinesis] object AvroFormat {
  val MaxWritersPerTask = 64

  def parse(definition: String): Schema = new Schema.Parser().parse(definition)
}

/**
 * JSON: each payload UTF-8 JSON text, read by the reader schema's type alone: properties by name, those the
 * reader lacks skipped, those the record lacks null. The writer's version is not needed, and the record is
 * not validated against it.
 */
private[sparkkinesis] final case class JsonFormat(readerDefinition: String, dataType: DataType) extends PayloadFormat {

  def newReader(): PayloadReader = new PayloadReader {
    private val decoder = new JsonDecoder(dataType)

    def read(writer: SchemaVersion, bytes: Array[Byte], offset: Int, length: Int): Any =
      decoder.decode(bytes, offset, length)
  }
}

/**
 * Protobuf: each payload the registry's message index, then a message of type `messageName` of the reader
 * version's file (the option messageName's, else the file's first; see
 * [[io.github.sparkkinesis.glue.protobuf.GsrMessageIndex]]). Protobuf
 * resolves versions by field number, so the reader's type alone reads every version's records: fields the
 * reader lacks are skipped, those the record lacks are null (or their proto2 default). The writer's
 * version is used only to check that the record's index names the reader's message in the writer's file.
 */
private[sparkkinesis] final case class ProtobufFormat(readerDefinition: String, messageName: String, dataType: DataType)
    extends PayloadFormat {

  def newReader(): PayloadReader = new PayloadReader {
    private val reader = new ProtoPayloadReader(readerDefinition, messageName)

    def read(writer: SchemaVersion, bytes: Array[Byte], offset: Int, length: Int): Any =
      reader.read(writer.id, writer.versionNumber, writer.definition, bytes, offset, length)
  }
}
