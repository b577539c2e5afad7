// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.io.ByteArrayOutputStream
import java.net.URI
import java.util.concurrent.atomic.AtomicReference
import java.util.zip.CRC32
import java.util.Base64

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, Secret}
import io.github.sparkkinesis.testing.AwsStub
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.BeforeAndAfterAll
import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.model.GetRecordsRequest
import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.thirdparty.jackson.core.{JsonFactory, JsonGenerator}
import software.amazon.awssdk.thirdparty.jackson.dataformat.cbor.CBORFactory

/**
 * GetRecords answers are read by the connector as the AWS SDK reads them: a local endpoint gives each answer
 * as Kinesis writes it, in CBOR (the SDK's default) or JSON, and the records the connector's client returns
 * are those a plain SDK client makes of the same bytes; a corrupt answer never becomes records. (The tests run
 * against the connector's jar, whose SDK is shaded: the plain client here is another copy of the SDK.)
 */
class GetRecordsParsingSuite extends AnyFunSuite with BeforeAndAfterAll {
  import GetRecordsParsingSuite._

  /** The answer every request gets. */
  private val answer = new AtomicReference[AwsStub.Answer]()

  private lazy val server = new AwsStub(_ => answer.get)
  private def endpoint = server.endpoint

  private lazy val connector = KinesisClientFactory.create(
    AwsConfig("us-east-1", Some(endpoint), AwsCredentialsConfig.StaticKeys("test", new Secret("test"), None)),
    ClientUse.Reading)

  /** A plain SDK client, CBOR or JSON as the SDK's `aws.cborEnabled` setting was when it was built. */
  private def plainClient(cbor: Boolean): KinesisClient = {
    val before = System.getProperty("aws.cborEnabled")
    System.setProperty("aws.cborEnabled", cbor.toString)
    try {
      KinesisClient
        .builder()
        .httpClient(Apache5HttpClient.builder().build())
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .endpointOverride(URI.create(endpoint))
        .build()
    } finally
      if (before == null) System.clearProperty("aws.cborEnabled") else System.setProperty("aws.cborEnabled", before)
  }
  private lazy val plainCbor = plainClient(cbor = true)
  private lazy val plainJson = plainClient(cbor = false)

  override protected def afterAll(): Unit =
    try {
      connector.close()
      plainCbor.close()
      plainJson.close()
      server.close()
    } finally super.afterAll()

  private def answering(contentType: String, body: Array[Byte], headers: Map[String, String] = Map.empty): Unit =
    answer.set(AwsStub.Answer(200, body, headers + ("Content-Type" -> contentType)))

  private def request = GetRecordsRequest.builder().shardIterator("iterator").limit(10000).build()

  /** What a plain SDK client makes of the answer, as the connector's records. */
  private def sdkRead(client: KinesisClient): RecordBatch = {
    val response = client.getRecords(request)
    RecordBatch(
      response
        .records()
        .asScala
        .map(r =>
          KinesisRecord(
            r.partitionKey,
            r.data.asByteArray,
            r.sequenceNumber,
            r.approximateArrivalTimestamp.toEpochMilli))
        .toVector,
      Option(response.nextShardIterator()),
      Option(response.millisBehindLatest()).map(_.longValue).getOrElse(0L)
    )
  }

  private def connectorRead(): RecordBatch = connector.getRecords("s", "shardId-000000000000", "iterator", 10000)

  private def sameRecords(actual: RecordBatch, expected: RecordBatch): Unit = {
    assert(actual.nextIterator == expected.nextIterator)
    assert(actual.millisBehindLatest == expected.millisBehindLatest)
    assert(actual.records.size == expected.records.size)
    actual.records.zip(expected.records).foreach { case (a, e) =>
      assert(a.partitionKey == e.partitionKey)
      assert(a.sequenceNumber == e.sequenceNumber)
      assert(a.approximateArrivalMillis == e.approximateArrivalMillis)
      assert(a.subSequenceNumber == e.subSequenceNumber)
      assert(java.util.Arrays.equals(a.data, e.data), s"record ${a.sequenceNumber}: data differs")
    }
  }

  test("records of every size up to 10 MiB, keys of any text and arrival times read from CBOR as the SDK does") {
    for (definiteLengths <- Seq(false, true)) {
      val body = Cbor.answer(Kinds, next = Some("next-iterator"), behind = 1234L, definiteLengths)
      answering(Cbor.contentType, body)
      val read = connectorRead()
      sameRecords(read, sdkRead(plainCbor))
      assert(read.records.map(_.partitionKey) == Kinds.map(_.key))
      assert(read.records.map(_.data.length) == Kinds.map(_.data.length))
      assert(read.records.map(_.approximateArrivalMillis) == Kinds.map(_.arrivalMillis))
      assert(read.nextIterator.contains("next-iterator") && read.millisBehindLatest == 1234L)
    }
  }

  test("an answer in JSON (the SDK with CBOR off) reads as the SDK reads it: base64 data, arrival in seconds") {
    answering(Json.contentType, Json.answer(Kinds, next = Some("n"), behind = 7L))
    val read = connectorRead()
    sameRecords(read, sdkRead(plainJson))
    assert(read.records.map(_.approximateArrivalMillis) == Kinds.map(_.arrivalMillis))
  }

  test("a closed shard's last answer has no next iterator; an empty answer has no records") {
    answering(Cbor.contentType, Cbor.answer(Kinds.take(1), next = None, behind = 0L))
    val last = connectorRead()
    assert(last.nextIterator.isEmpty && last.records.size == 1)
    answering(Cbor.contentType, Cbor.answer(Nil, next = Some("n"), behind = 99L))
    val empty = connectorRead()
    assert(empty.records.isEmpty && empty.nextIterator.contains("n") && empty.millisBehindLatest == 99L)
  }

  test("the connector reads the records itself: an answer in JSON to a CBOR request, which the SDK refuses") {
    answering(Json.contentType, Json.answer(Kinds, next = Some("n"), behind = 5L))
    intercept[Exception](sdkRead(plainCbor))
    sameRecords(connectorRead(), sdkRead(plainJson))
  }

  test("Kinesis' CRC32 of the answer is checked: a body that does not match it never becomes records") {
    val body = Cbor.answer(Kinds, next = Some("n"), behind = 0L)
    answering(Cbor.contentType, body, Map("x-amz-crc32" -> crc32(body).toString))
    sameRecords(connectorRead(), sdkRead(plainCbor))
    answering(Cbor.contentType, body, Map("x-amz-crc32" -> (crc32(body) ^ 1L).toString))
    val corrupt = intercept[KinesisApiException](connectorRead())
    assert(corrupt.getMessage.contains("CRC32"), corrupt.getMessage)
    intercept[Exception](sdkRead(plainCbor))
    answering(Cbor.contentType, body, Map("x-amz-crc32" -> "not a number"))
    val unreadable = intercept[KinesisApiException](connectorRead())
    assert(unreadable.getMessage.contains("CRC32"), unreadable.getMessage)
  }

  test("a body that is not a GetRecords answer fails the call, as the SDK's reading would, and returns nothing") {
    val noSequence = Cbor.answer(Kinds.take(2), next = Some("n"), behind = 0L, withSequence = false)
    val valid = Cbor.answer(Kinds.take(1), next = Some("n"), behind = 0L)
    val notAnAnswer = Cbor.answer(Nil, next = Some("n"), behind = 0L).drop(1) // no map around the fields
    for (body <- Seq(noSequence, valid ++ valid, notAnAnswer, valid.dropRight(3))) {
      answering(Cbor.contentType, body)
      val failure = intercept[KinesisApiException](connectorRead())
      assert(failure.getMessage.contains("GetRecords answer"), failure.getMessage)
    }
  }
}

private object GetRecordsParsingSuite {

  /**
   * A record as written, without a PartitionKey field if `key` is null; an unknown field and EncryptionType
   * beside the read ones.
   */
  final case class Written(key: String, data: Array[Byte], sequence: String, arrivalMillis: Long)

  /**
   * No partition key (a stream whose records Kinesis distributes itself), 0 bytes, 1 byte, 64 KiB, 1 MiB and
   * 10 MiB (the largest Kinesis takes), keys of multibyte text and of 256 characters.
   */
  val Kinds: Seq[Written] = {
    val random = new scala.util.Random(42)
    def bytes(n: Int) = { val b = new Array[Byte](n); random.nextBytes(b); b }
    Seq(
      Written(null, bytes(3), "49590338271490256608559692538361571095921575989136588897", 1700000000122L),
      Written("k", Array.emptyByteArray, "49590338271490256608559692538361571095921575989136588898", 1700000000123L),
      Written("ключ-キー-🔑", bytes(1), "49590338271490256608559692538361571095921575989136588899", 1700000000124L),
      Written("x" * 256, bytes(65536), "49590338271490256608559692538361571095921575989136588900", 1700000001000L),
      Written("big", bytes(1024 * 1024), "49590338271490256608559692538361571095921575989136588901", 1700000001999L),
      Written(
        "huge",
        bytes(10 * 1024 * 1024),
        "49590338271490256608559692538361571095921575989136588902",
        1700000002000L)
    )
  }

  def crc32(body: Array[Byte]): Long = { val c = new CRC32(); c.update(body, 0, body.length); c.getValue }

  /** A GetRecords answer in a wire, as Kinesis writes it. */
  abstract class Wire(val contentType: String, factory: JsonFactory) {
    protected def data(g: JsonGenerator, bytes: Array[Byte]): Unit
    protected def timestamp(g: JsonGenerator, millis: Long): Unit

    def answer(
        records: Seq[Written],
        next: Option[String],
        behind: Long,
        definiteLengths: Boolean = false,
        withSequence: Boolean = true): Array[Byte] = {
      val out = new ByteArrayOutputStream()
      val g = factory.createGenerator(out)
      def startObject(fields: Int): Unit =
        if (definiteLengths) g.writeStartObject(null, fields) else g.writeStartObject()
      startObject(4)
      g.writeFieldName("Records")
      if (definiteLengths) g.writeStartArray(null, records.size) else g.writeStartArray()
      records.foreach { r =>
        startObject(4 + (if (withSequence) 1 else 0) + (if (r.key != null) 1 else 0))
        if (withSequence) g.writeStringField("SequenceNumber", r.sequence)
        g.writeFieldName("ApproximateArrivalTimestamp")
        timestamp(g, r.arrivalMillis)
        g.writeFieldName("Data")
        data(g, r.data)
        if (r.key != null) g.writeStringField("PartitionKey", r.key)
        g.writeStringField("EncryptionType", "NONE")
        g.writeFieldName("SomeFieldKinesisMayAdd")
        g.writeStartObject()
        g.writeNumberField("nested", 1)
        g.writeEndObject()
        g.writeEndObject()
      }
      g.writeEndArray()
      next match {
        case Some(n) => g.writeStringField("NextShardIterator", n)
        case None => g.writeNullField("NextShardIterator")
      }
      g.writeNumberField("MillisBehindLatest", behind)
      g.writeFieldName("ChildShards")
      g.writeStartArray()
      g.writeEndArray()
      g.writeEndObject()
      g.close()
      out.toByteArray
    }
  }

  object Cbor extends Wire("application/x-amz-cbor-1.1", new CBORFactory()) {

    /** A JSON document as the same structure in CBOR. */
    def of(json: String): Array[Byte] = {
      val parser = new JsonFactory().createParser(json)
      val out = new ByteArrayOutputStream()
      val g = new CBORFactory().createGenerator(out)
      while (parser.nextToken() != null) g.copyCurrentEvent(parser)
      g.close()
      out.toByteArray
    }

    protected def data(g: JsonGenerator, bytes: Array[Byte]): Unit = g.writeBinary(bytes)
    protected def timestamp(g: JsonGenerator, millis: Long): Unit = g.writeNumber(millis)
  }

  object Json extends Wire("application/x-amz-json-1.1", new JsonFactory()) {
    protected def data(g: JsonGenerator, bytes: Array[Byte]): Unit =
      g.writeString(Base64.getEncoder.encodeToString(bytes))
    protected def timestamp(g: JsonGenerator, millis: Long): Unit =
      g.writeNumber(java.math.BigDecimal.valueOf(millis, 3))
  }
}
