// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import java.io.ByteArrayOutputStream

import scala.collection.mutable

import software.amazon.awssdk.thirdparty.jackson.core.JsonToken
import software.amazon.awssdk.thirdparty.jackson.dataformat.cbor.{CBORFactory, CBORGenerator, CBORParser}

/**
 * The wire format the AWS SDK for Java v2 speaks to Kinesis: `application/x-amz-cbor-1.1`, JSON's shapes in
 * CBOR, blobs as byte strings and timestamps as epoch milliseconds. Read and written with the CBOR codec the
 * SDK itself uses (its shaded Jackson), so that what the synthetic Kinesis answers is what the SDK parses.
 */
private[bench] object Cbor {
  val ContentType = "application/x-amz-cbor-1.1"

  private val factory = new CBORFactory()

  /**
   * A request's body as a map of its fields: text as String, whole numbers (timestamps too) as Long,
   * decimals as Double, blobs as Array[Byte], lists as Seq and structures as Map.
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

  private def valueOf(parser: CBORParser): Any = parser.currentToken() match {
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
    case other => throw new IllegalArgumentException(s"unexpected CBOR token $other")
  }

  /** A structure written by `fields` into a buffer of about `sizeHint` bytes. */
  def write(sizeHint: Int = 256)(fields: CBORGenerator => Unit): Array[Byte] = {
    val out = new ByteArrayOutputStream(sizeHint)
    val generator = factory.createGenerator(out)
    generator.writeStartObject()
    fields(generator)
    generator.writeEndObject()
    generator.close()
    out.toByteArray
  }
}
