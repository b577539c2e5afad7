// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.sparkkinesis.bench

import org.apache.avro.generic.{GenericDatumReader, GenericDatumWriter}
import org.apache.avro.io.{BinaryDecoder, BinaryEncoder, DecoderFactory, EncoderFactory}
import org.apache.avro.Schema
import org.apache.spark.sql.avro.{AvroDeserializer, AvroSerializer}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.DataType

/**
 * What Spark's `from_avro` and `to_avro` do to one value, for the Glue benchmark's baseline: on Spark 4 their
 * converters (`AvroDeserializer`, `AvroSerializer`) are in spark-sql, package-private, and the expressions
 * that call them (in spark-avro, not on PySpark's class path) do per value what these do: Avro's generic
 * reader then the converter into Catalyst values, and the converter then Avro's generic writer. Not
 * thread-safe (one per thread), as the expressions' state is one per task.
 */
final class SparkAvroFunctions(schema: Schema, dataType: DataType) {

  private val reader = new GenericDatumReader[Any](schema, schema)
  private val deserializer = new AvroDeserializer(schema, dataType, "CORRECTED", false, "member_", -1)
  private var decoder: BinaryDecoder = _
  private var datum: Any = _

  /** `from_avro(payload, schema)`'s value. */
  def fromAvro(payload: Array[Byte]): Any = {
    decoder = DecoderFactory.get().binaryDecoder(payload, 0, payload.length, decoder)
    datum = reader.read(datum, decoder)
    deserializer.deserialize(datum).orNull
  }

  private val serializer = new AvroSerializer(dataType, schema, false)
  private val writer = new GenericDatumWriter[Any](schema)
  private val out = new java.io.ByteArrayOutputStream()
  private var encoder: BinaryEncoder = _

  /** `to_avro(struct, schema)`'s value. */
  def toAvro(row: InternalRow): Array[Byte] = {
    out.reset()
    encoder = EncoderFactory.get().directBinaryEncoder(out, encoder)
    writer.write(serializer.serialize(row), encoder)
    encoder.flush()
    out.toByteArray
  }
}
