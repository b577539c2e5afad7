// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.io.{ByteArrayInputStream, InputStream, SequenceInputStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Optional

import software.amazon.awssdk.core.interceptor.{Context, ExecutionAttribute, ExecutionAttributes, ExecutionInterceptor}

/**
 * Counts AWS' throttling answers attempt by attempt: an SDK `ExecutionInterceptor` on the connector's
 * synchronous Kinesis clients that looks at the HTTP response of every attempt, those the SDK retries by
 * itself included, and adds each throttling answer to the [[RateLimitErrors]] its request carries (an
 * execution attribute that [[SdkKinesisApi]] sets for the caller of the call; a request without one is not
 * counted). An answer is throttling when its status is 429 or its error code is one of
 * [[RateLimitErrors.Codes]]: the code is the `x-amzn-ErrorType` header, else the `__type` field of the body,
 * which Kinesis writes as JSON or CBOR. Only an error answer's body is looked at, at most
 * [[RateLimitCounting.MaxPeekBytes]] of it, and the SDK reads it whole afterwards. Stateless; thread-safe.
 */
private[client] object RateLimitCounting extends ExecutionInterceptor {

  /** The caller's count, carried by each request of a [[KinesisApi.counting]] client. */
  val Errors: ExecutionAttribute[RateLimitErrors] = new ExecutionAttribute("SparkKinesisRateLimitErrors")

  /** The most bytes of an error answer's body read to find its error code. */
  val MaxPeekBytes = 64 * 1024

  private val ErrorTypeHeader = "x-amzn-ErrorType"
  private val TypeField = "__type".getBytes(UTF_8)

  override def modifyHttpResponseContent(
      context: Context.ModifyHttpResponse,
      attributes: ExecutionAttributes): Optional[InputStream] = {
    val body = context.responseBody()
    val errors = attributes.getAttribute(Errors)
    val status = context.httpResponse().statusCode()
    if (errors == null || status < 400) body
    else {
      val header = context.httpResponse().firstMatchingHeader(ErrorTypeHeader)
      if (header.isPresent || status == 429 || !body.isPresent) {
        if (RateLimitErrors.isThrottling(status, if (header.isPresent) Some(codeOf(header.get)) else None))
          errors.add(1)
        body
      } else {
        val head = body.get.readNBytes(MaxPeekBytes)
        if (RateLimitErrors.isThrottling(status, errorType(head))) errors.add(1)
        Optional.of(new SequenceInputStream(new ByteArrayInputStream(head), body.get))
      }
    }
  }

  /**
   * The error code in an error answer's body: the `__type` field, as JSON (`"__type":"Code"`) or CBOR (a text
   * string after the key), without its namespace.
   */
  private[client] def errorType(body: Array[Byte]): Option[String] = {
    val at = indexOf(body, TypeField)
    if (at < 0) None
    else {
      var i = at + TypeField.length
      val text =
        if (i < body.length && body(i) == '"') {
          i += 1
          while (i < body.length && (body(i) == ':' || Character.isWhitespace(body(i).toInt))) i += 1
          if (i >= body.length || body(i) != '"') None
          else {
            val end = body.indexWhere(_ == '"', i + 1)
            if (end < 0) None else Some(new String(body, i + 1, end - i - 1, UTF_8))
          }
        } else if (i < body.length) {
          // CBOR: a text string of up to 23 bytes has its length in its first byte, a longer one in the next.
          val first = body(i) & 0xff
          val (length, start) =
            if (first >= 0x60 && first <= 0x77) (first - 0x60, i + 1)
            else if (first == 0x78 && i + 1 < body.length) (body(i + 1) & 0xff, i + 2)
            else (-1, 0)
          if (length < 0 || start + length > body.length) None else Some(new String(body, start, length, UTF_8))
        } else None
      text.map(codeOf)
    }
  }

  /** An error code as the SDK reads it: what follows a `#` namespace, before a `:`. */
  private def codeOf(raw: String): String = {
    val name = raw.substring(raw.lastIndexOf('#') + 1)
    val colon = name.indexOf(':')
    (if (colon >= 0) name.substring(0, colon) else name).trim
  }

  private def indexOf(bytes: Array[Byte], part: Array[Byte]): Int =
    (0 to bytes.length - part.length).find(i => part.indices.forall(j => bytes(i + j) == part(j))).getOrElse(-1)
}
