// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import scala.jdk.CollectionConverters._

import software.amazon.eventstream.{HeaderValue, Message}

/**
 * The messages of SubscribeToShard's answer, in AWS' event stream framing (a prelude with the lengths and
 * its CRC32, headers, the payload, the message's CRC32), encoded by the SDK's own event stream library: the
 * initial response, events, and the exception that ends a subscription in error.
 */
private[synthetic] object EventStream {
  val ContentType = "application/vnd.amazon.eventstream"

  /** An event of type `eventType` (`initial-response`, `SubscribeToShardEvent`) with a payload in `wire`. */
  def event(wire: Wire, eventType: String, payload: Array[Byte]): Array[Byte] =
    encode(Map(":message-type" -> "event", ":event-type" -> eventType, ":content-type" -> wire.contentType), payload)

  /** The exception `code` (ResourceNotFoundException, ...) that ends a subscription. */
  def exception(wire: Wire, code: String, message: String): Array[Byte] =
    encode(
      Map(":message-type" -> "exception", ":exception-type" -> code, ":content-type" -> wire.contentType),
      wire.write()(_.writeStringField("message", message)))

  private def encode(headers: Map[String, String], payload: Array[Byte]): Array[Byte] = {
    val buffer = new Message(headers.map { case (k, v) => k -> HeaderValue.fromString(v) }.asJava, payload).toByteBuffer
    val bytes = new Array[Byte](buffer.remaining())
    buffer.get(bytes)
    bytes
  }
}
