// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.io.{ByteArrayInputStream, InputStream, OutputStream}
import java.util.zip.{CRC32, CheckedInputStream}
import java.util.Optional

import scala.util.control.NonFatal
import scala.util.Try

import software.amazon.awssdk.core.exception.{Crc32MismatchException, SdkClientException}
import software.amazon.awssdk.core.interceptor.{Context, ExecutionAttribute, ExecutionAttributes, ExecutionInterceptor}
import software.amazon.awssdk.http.{SdkHttpHeaders, SdkHttpResponse}

/**
 * Reads successful GetRecords answers with [[GetRecordsWire]] rather than the SDK's unmarshaller: an SDK
 * `ExecutionInterceptor` on the connector's GetRecords client. For a request that carries an [[Answer]]
 * ([[SdkKinesisApi]] gives each GetRecords call its own), it reads a 2xx answer's body as it arrives, checks
 * it against Kinesis' `x-amz-crc32` header if there is one (the SDK's own check, which would run on what the
 * SDK is given, is taken off with the header), puts the records into the Answer and gives the SDK an answer
 * with no fields to parse in their place. All else stays the SDK's: signing, retries, timeouts, error
 * answers (never touched; [[RateLimitCounting]] reads those), metrics. A body that is not a GetRecords
 * answer fails the call with an `SdkClientException`, as the SDK's own reading would. Stateless; thread-safe.
 */
private[client] object GetRecordsParsing extends ExecutionInterceptor {

  /** Where the interceptor leaves one call's records; empty if the call's client does not have it. */
  final class Answer {
    @volatile private var read: RecordBatch = _
    def batch: Option[RecordBatch] = Option(read)
    private[GetRecordsParsing] def set(batch: RecordBatch): Unit = read = batch
  }

  val Parsed: ExecutionAttribute[Answer] = new ExecutionAttribute("SparkKinesisGetRecordsAnswer")

  private val Crc32Header = "x-amz-crc32"

  private def takes(response: SdkHttpResponse, attributes: ExecutionAttributes): Boolean =
    response.isSuccessful && attributes.getAttribute(Parsed) != null

  override def modifyHttpResponse(
      context: Context.ModifyHttpResponse,
      attributes: ExecutionAttributes): SdkHttpResponse = {
    val response = context.httpResponse()
    if (takes(response, attributes) && response.firstMatchingHeader(Crc32Header).isPresent)
      response.toBuilder.removeHeader(Crc32Header).build()
    else response
  }

  override def modifyHttpResponseContent(
      context: Context.ModifyHttpResponse,
      attributes: ExecutionAttributes): Optional[InputStream] = {
    val body = context.responseBody()
    val response = context.httpResponse()
    if (!body.isPresent || !takes(response, attributes)) body
    else {
      val crc32 = header(response, Crc32Header).map(given => (given, new CheckedInputStream(body.get, new CRC32())))
      try {
        val read =
          try Right(GetRecordsWire.read(crc32.fold(body.get)(_._2), header(response, "Content-Type")))
          catch { case NonFatal(e) => Left(e) }
        crc32.foreach { case (given, checked) =>
          // A corrupt body fails as corrupt, whatever reading it made of it.
          checked.transferTo(OutputStream.nullOutputStream())
          val actual = checked.getChecksum.getValue
          if (Try(given.trim.toLong).toOption.forall(_ != actual))
            throw Crc32MismatchException.create(
              s"a GetRecords answer's CRC32 is $actual, Kinesis said $given",
              read.left.toOption.orNull)
        }
        read match {
          case Right(batch) => attributes.getAttribute(Parsed).set(batch)
          case Left(e) => throw SdkClientException.create(s"Unable to read a GetRecords answer: ${e.getMessage}", e)
        }
      } finally body.get.close()
      Optional.of(new ByteArrayInputStream(GetRecordsWire.noFields(header(context.httpRequest(), "Content-Type"))))
    }
  }

  private def header(message: SdkHttpHeaders, name: String): Option[String] = {
    val value = message.firstMatchingHeader(name)
    if (value.isPresent) Some(value.get) else None
  }
}
