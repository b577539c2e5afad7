// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.concurrent.ConcurrentHashMap
import java.util.zip.DataFormatException

import io.github.sparkkinesis.errors.{GlueRegistryErrors, GlueRegistryException, KinesisErrors}
import io.github.sparkkinesis.glue.avro.AvroConversionException
import io.github.sparkkinesis.glue.json.JsonDecodeException
import io.github.sparkkinesis.glue.protobuf.ProtoDecodeException
import io.github.sparkkinesis.util.RecordOrigins
import org.apache.spark.sql.types.DataType
import org.apache.spark.util.LongAccumulator
import org.slf4j.LoggerFactory

/**
 * How `from_glue_registry` decodes, fixed on the driver when the function is analysed: the options, the
 * reader schema version (every record is resolved to it) and its format's reading. Serializable: it travels
 * to executors inside the plan.
 *
 * @param undecodable counts, in PERMISSIVE mode, the records decoded to null (a named accumulator: the
 *                    stages' pages of Spark's UI show it)
 */
private[sparkkinesis] final case class GlueDecoding(
    options: GlueFunctionOptions,
    reader: SchemaVersion,
    format: PayloadFormat,
    undecodable: Option[LongAccumulator]) {

  def dataType: DataType = format.dataType

  /** A decoder for one task. */
  def newDecoder(): RecordDecoder = new RecordDecoder(this)

  override def toString: String =
    s"${options.schema.registryName}/${options.schema.schemaName} v${reader.versionNumber} ${reader.dataFormat}" +
      options.messageName.fold("")(name => s" message $name")
}

/**
 * Decodes the records of one task: reads the header, finds the writer's schema version ([[SchemaVersions]]:
 * asked of the registry once per version and JVM), checks it is a version of the reader's schema, inflates
 * the payload if compressed, and reads it resolved to the reader schema. A record that cannot be decoded
 * fails the task in FAILFAST mode and is null in PERMISSIVE mode. Runs on executors; not thread-safe (one per
 * task).
 */
private[sparkkinesis] final class RecordDecoder(decoding: GlueDecoding) {
  import RecordDecoder._

  private val options = decoding.options
  private val reader = decoding.format.newReader()

  /** The record's value, of the reader schema's type; null when it cannot be decoded in PERMISSIVE mode. */
  def decode(record: Array[Byte]): Any = GlueFraming.read(record) match {
    case Left(problem) => undecodable("NOT_FRAMED", record, problem, null)
    case Right(frame) =>
      val writer =
        try SchemaVersions.byId(options.registry, frame.schemaVersionId)
        catch {
          case e: GlueRegistryException if e.kind == GlueRegistryException.NotFound =>
            return undecodable(
              "INVALID",
              record,
              s"the registry has no schema version ${frame.schemaVersionId}, which its header names",
              e)
        }
      if (writer.schemaArn != decoding.reader.schemaArn)
        undecodable(
          "OTHER_SCHEMA",
          record,
          s"its header names version ${writer.versionNumber} of schema ${writer.schemaArn}",
          null,
          "writerSchema" -> s"${writer.registryName}/${writer.schemaName}",
          "schema" -> s"${options.schema.registryName}/${options.schema.schemaName}"
        )
      else
        try {
          val (bytes, offset, length) = GlueFraming.payload(record, frame)
          reader.read(writer, bytes, offset, length)
        } catch {
          case e: DataFormatException =>
            undecodable("INVALID", record, s"its zlib-compressed payload cannot be inflated: ${e.getMessage}", e)
          case e @ (_: AvroConversionException | _: JsonDecodeException | _: ProtoDecodeException) =>
            undecodable(
              "INVALID",
              record,
              s"its payload is not valid for version ${writer.versionNumber} (${writer.id}, ${writer.dataFormat}): " +
                KinesisErrors.rootMessage(e),
              e
            )
        }
  }

  private def undecodable(
      kind: String,
      record: Array[Byte],
      problem: String,
      cause: Throwable,
      parameters: (String, String)*): Null = {
    val error = GlueRegistryErrors.recordUndecodable(kind, describe(record), problem, cause, parameters: _*)
    options.mode match {
      case DecodeMode.FailFast => throw error
      case DecodeMode.Permissive =>
        decoding.undecodable.foreach(_.add(1))
        if (loggedKinds.putIfAbsent(kind, true) == null)
          log.warn(
            s"${error.getMessage} (mode PERMISSIVE: decoded to null; further such records are counted " +
              "by the accumulator from_glue_registry undecodable records, and logged at DEBUG)")
        else if (log.isDebugEnabled) log.debug(error.getMessage)
        null
    }
  }
}

private[sparkkinesis] object RecordDecoder {
  private val log = LoggerFactory.getLogger(classOf[RecordDecoder])

  /** The kinds of undecodable record this JVM has logged at WARN: the first of each. */
  private val loggedKinds = new ConcurrentHashMap[String, java.lang.Boolean]()

  /**
   * A record, for messages: where it was read, when a Kinesis reader of the task handed it on
   * ([[RecordOrigins]]), and its size; never its bytes, which are the user's data.
   */
  def describe(record: Array[Byte]): String = RecordOrigins.of(record) match {
    case Some(origin) => s"the record of $origin (${record.length} bytes)"
    case None => s"a record of ${record.length} bytes"
  }
}
