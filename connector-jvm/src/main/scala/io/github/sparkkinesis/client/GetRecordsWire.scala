// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.io.InputStream

import software.amazon.awssdk.thirdparty.jackson.core.{
  Base64Variant,
  Base64Variants,
  JsonFactory,
  JsonParser,
  JsonToken
}
import software.amazon.awssdk.thirdparty.jackson.dataformat.cbor.CBORFactory

/**
 * A GetRecords answer's body read straight into the connector's records, with the codecs and the reading of
 * each field the AWS SDK uses (its shaded Jackson, factories as it builds them), and without its objects: no
 * `Record`, no `SdkBytes` (which copies each record's data once more), no `Instant`. Two wires:
 *  - CBOR (`application/x-amz-cbor-1.1`, the SDK's default): data a byte string, read as the parser's own
 *    array; the arrival time a whole number of epoch milliseconds, as the SDK reads it;
 *  - JSON (`application/x-amz-json-1.1`, the SDK with CBOR turned off): data in base64; the arrival time
 *    epoch seconds with a fraction, truncated to milliseconds as the SDK's `Instant.toEpochMilli` does.
 * The answer's Content-Type names its wire (JSON if it says so, else CBOR). Fields the connector does not
 * read (a record's `EncryptionType`, the answer's `ChildShards`) and fields Kinesis may add are skipped.
 * Stateless; thread-safe.
 */
private[client] object GetRecordsWire {

  // As the SDK makes them, but leaving the body to its owner to close.
  private val cbor = new CBORFactory().disable(JsonParser.Feature.AUTO_CLOSE_SOURCE)
  private val json = new JsonFactory().disable(JsonParser.Feature.AUTO_CLOSE_SOURCE)

  /** Base64 as the SDK decodes it (Java's decoder): standard alphabet, padding or not. */
  private val base64 =
    Base64Variants.MIME_NO_LINEFEEDS.withReadPadding(Base64Variant.PaddingReadBehaviour.PADDING_ALLOWED)

  /** Thrown when a body is not a GetRecords answer in its wire: it says where. */
  final class Unreadable(message: String) extends RuntimeException(message)

  /**
   * The records, next iterator and lag of a successful GetRecords answer, read from `body` (not closed) to the
   * answer's end, in the wire `contentType` names.
   */
  def read(body: InputStream, contentType: Option[String]): RecordBatch = {
    val isJson = contentType.exists(_.contains("json"))
    val parser = (if (isJson) json else cbor).createParser(body)
    try {
      expect(parser, parser.nextToken(), JsonToken.START_OBJECT, "the answer")
      var records: Vector[KinesisRecord] = Vector.empty
      var next: String = null
      var behind = 0L
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        val name = parser.currentName()
        val token = parser.nextToken()
        if (token != JsonToken.VALUE_NULL) name match {
          case "Records" => records = readRecords(parser, token, isJson)
          case "NextShardIterator" => next = text(parser, token, name)
          case "MillisBehindLatest" => behind = parser.getLongValue
          case _ => parser.skipChildren()
        }
      }
      expect(parser, parser.currentToken(), JsonToken.END_OBJECT, "the answer")
      if (parser.nextToken() != null) throw new Unreadable("the GetRecords answer goes on after its end")
      RecordBatch(records, Option(next), behind)
    } finally parser.close()
  }

  private def readRecords(parser: JsonParser, start: JsonToken, isJson: Boolean): Vector[KinesisRecord] = {
    expect(parser, start, JsonToken.START_ARRAY, "Records")
    val records = Vector.newBuilder[KinesisRecord]
    var token = parser.nextToken()
    while (token == JsonToken.START_OBJECT) {
      records += readRecord(parser, isJson)
      token = parser.nextToken()
    }
    expect(parser, token, JsonToken.END_ARRAY, "Records")
    records.result()
  }

  /** One record, the parser at its START_OBJECT; leaves it at its END_OBJECT. */
  private def readRecord(parser: JsonParser, isJson: Boolean): KinesisRecord = {
    var key: String = null
    var data: Array[Byte] = Array.emptyByteArray
    var sequence: String = null
    var arrival = 0L
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      val name = parser.currentName()
      val token = parser.nextToken()
      if (token != JsonToken.VALUE_NULL) name match {
        case "Data" => data = if (isJson) parser.getBinaryValue(base64) else parser.getBinaryValue()
        case "PartitionKey" => key = text(parser, token, name)
        case "SequenceNumber" => sequence = text(parser, token, name)
        case "ApproximateArrivalTimestamp" => arrival = if (isJson) millisOfSeconds(parser) else parser.getLongValue
        case _ => parser.skipChildren()
      }
    }
    expect(parser, parser.currentToken(), JsonToken.END_OBJECT, "a record")
    if (sequence == null) throw new Unreadable("a record of the GetRecords answer has no SequenceNumber")
    KinesisRecord(key, data, sequence, arrival)
  }

  /** JSON's epoch seconds, with a fraction or not, as milliseconds. */
  private def millisOfSeconds(parser: JsonParser): Long = {
    val token = parser.currentToken()
    if (token != JsonToken.VALUE_NUMBER_INT)
      expect(parser, token, JsonToken.VALUE_NUMBER_FLOAT, "a record's arrival time")
    parser.getDecimalValue.movePointRight(3).longValue
  }

  private def text(parser: JsonParser, token: JsonToken, field: String): String = {
    expect(parser, token, JsonToken.VALUE_STRING, field)
    parser.getText
  }

  private def expect(parser: JsonParser, token: JsonToken, wanted: JsonToken, what: String): Unit =
    if (token != wanted)
      throw new Unreadable(
        s"$what of the GetRecords answer: expected $wanted, found $token at byte ${parser.currentLocation().getByteOffset}")

  /**
   * An answer with no fields, for the SDK to parse once the records are read: in CBOR if the request was (the
   * SDK parses an answer in the wire it asked in), else in JSON.
   */
  def noFields(requestContentType: Option[String]): Array[Byte] =
    if (requestContentType.exists(_.contains("cbor"))) EmptyCbor.clone() else EmptyJson.clone()

  private val EmptyJson = "{}".getBytes(java.nio.charset.StandardCharsets.US_ASCII)
  private val EmptyCbor = Array(0xa0.toByte) // a map of no entries

}
