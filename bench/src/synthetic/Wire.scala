// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import java.io.ByteArrayOutputStream

import scala.collection.mutable

import software.amazon.awssdk.thirdparty.jackson.core.{JsonFactory, JsonGenerator, JsonParser, JsonToken}
import software.amazon.awssdk.thirdparty.jackson.dataformat.cbor.CBORFactory

/**
 * A wire format the AWS SDK for Java v2 speaks to Kinesis, read and written with the codecs the SDK itself
 * uses (its shaded Jackson), so that what the synthetic Kinesis answers is what the SDK parses:
 *  - [[Wire.Cbor]], `application/x-amz-cbor-1.1`, which its synchronous client sends: JSON's shapes in CBOR,
 *    blobs as byte strings and timestamps as epoch milliseconds;
 *  - [[Wire.Json]], `application/x-amz-json-1.1`, which its asynchronous client sends (SubscribeToShard):
 *    blobs in base64 and timestamps as epoch seconds.
 * A request is answered in the format it came in.
 */
private[bench] final class Wire private (val contentType: String, factory: JsonFactory, millis: Boolean) {

  /**
   * A request's body as a map of its fields: text as String, whole numbers (CBOR's timestamps too) as Long,
   * decimals (JSON's timestamps too) as Double, CBOR's blobs as Array[Byte], lists as Seq and structures as
   * Map.
   */
  def read(body: Array[Byte]): Map[String, Any] =
    if (body.isEmpty) Map.empty
    else {
      val parser = factory.createParser(body)
      try {
        parser.nextToken()
        valueOf(parser) match {
          case fields: Map[String, Any] @unchecked => fields
          case other => throw new IllegalArgumentException(s"a request body must be a structure, not $other")
        }
      } finally parser.close()
    }

  private def valueOf(parser: JsonParser): Any = parser.currentToken() match {
    case JsonToken.START_OBJECT =>
      val fields = mutable.LinkedHashMap.empty[String, Any]
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        val name = parser.currentName()
        parser.nextToken()
        fields(name) = valueOf(parser)
      }
      fields.toMap
    case JsonToken.START_ARRAY =>
      val items = Vector.newBuilder[Any]
      while (parser.nextToken() != JsonToken.END_ARRAY) items += valueOf(parser)
      items.result()
    case JsonToken.VALUE_STRING => parser.getText
    case JsonToken.VALUE_NUMBER_INT => parser.getLongValue
    case JsonToken.VALUE_NUMBER_FLOAT => parser.getDoubleValue
    case JsonToken.VALUE_EMBEDDED_OBJECT => parser.getBinaryValue()
    case JsonToken.VALUE_TRUE => true
    case JsonToken.VALUE_FALSE => false
    case JsonToken.VALUE_NULL => null
    case other => throw new IllegalArgumentException(s"unexpected token $other")
  }

  /** A structure written by `fields` into a buffer of about `sizeHint` bytes. */
  def write(sizeHint: Int = 256)(fields: JsonGenerator => Unit): Array[Byte] = {
    val out = new ByteArrayOutputStream(sizeHint)
    val generator = factory.createGenerator(out)
    generator.writeStartObject()
    fields(generator)
    generator.writeEndObject()
    generator.close()
    out.toByteArray
  }

  /** A timestamp field, as the format writes one. */
  def timestamp(g: JsonGenerator, name: String, epochMs: Long): Unit =
    if (millis) g.writeNumberField(name, epochMs) else g.writeNumberField(name, epochMs / 1000.0)
}

private[bench] object Wire {
  val Cbor = new Wire("application/x-amz-cbor-1.1", new CBORFactory(), millis = true)
  val Json = new Wire("application/x-amz-json-1.1", new JsonFactory(), millis = false)

  /** The format of a request's Content-Type: JSON's, or else CBOR. */
  def of(contentType: Option[String]): Wire = if (contentType.exists(_.contains("json"))) Json else Cbor
}
