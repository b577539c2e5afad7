// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.net.{InetAddress, InetSocketAddress}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import com.sun.net.httpserver.HttpServer

/**
 * An AWS endpoint on loopback that gives every request the answer `answer` says, for tests of what the
 * connector makes of AWS' answers without AWS: STS refusing AssumeRole, Kinesis refusing credentials or
 * throttling, GetRecords answers as Kinesis writes them, a container credentials endpoint. Records each request (method, path, headers, body). Stop it with
 * [[close]]. Thread-safe.
 */
final class AwsStub(answer: AwsStub.Request => AwsStub.Answer) extends AutoCloseable {
  private val server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress, 0), 16)
  private val received = new ConcurrentLinkedQueue[AwsStub.Request]()

  server.createContext(
    "/",
    exchange =>
      try {
        val request = AwsStub.Request(
          exchange.getRequestMethod,
          exchange.getRequestURI.toString,
          exchange.getRequestHeaders.asScala.map { case (k, v) => k.toLowerCase -> v.asScala.mkString(",") }.toMap,
          new String(exchange.getRequestBody.readAllBytes(), UTF_8)
        )
        received.add(request)
        val a = answer(request)
        a.headers.foreach { case (k, v) => exchange.getResponseHeaders.set(k, v) }
        val body = a.content
        exchange.sendResponseHeaders(a.status, if (body.isEmpty) -1L else body.length.toLong)
        if (body.nonEmpty) exchange.getResponseBody.write(body)
      } finally exchange.close()
  )
  server.start()

  val endpoint: String = s"http://127.0.0.1:${server.getAddress.getPort}"

  def requests: Seq[AwsStub.Request] = received.asScala.toSeq

  override def close(): Unit = server.stop(0)
}

object AwsStub {

  final case class Request(method: String, path: String, headers: Map[String, String], body: String)

  /** An answer: its status, its body's bytes, its headers. */
  final case class Answer(status: Int, content: Array[Byte], headers: Map[String, String])

  object Answer {

    /** An answer whose body is text, in UTF-8. */
    def apply(status: Int, body: String, headers: Map[String, String] = Map.empty): Answer =
      Answer(status, body.getBytes(UTF_8), headers)
  }

  /** STS's refusal, as its query protocol words it. */
  def stsError(status: Int, code: String, message: String): Answer =
    Answer(
      status,
      s"""<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>""" +
        s"""<Code>$code</Code><Message>$message</Message></Error><RequestId>r-1</RequestId></ErrorResponse>""",
      Map("Content-Type" -> "text/xml")
    )

  /** STS's answer to AssumeRole: a session until `expiration` (an ISO-8601 instant). */
  def assumedRole(accessKeyId: String, expiration: String): Answer =
    Answer(
      200,
      """<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials>""" +
        s"<AccessKeyId>$accessKeyId</AccessKeyId><SecretAccessKey>stub-secret</SecretAccessKey>" +
        s"<SessionToken>stub-token</SessionToken><Expiration>$expiration</Expiration></Credentials>" +
        "<AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/r/s</Arn><AssumedRoleId>AROA:s</AssumedRoleId>" +
        "</AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata>" +
        "</AssumeRoleResponse>",
      Map("Content-Type" -> "text/xml")
    )

  /** A refusal of Kinesis' JSON protocol (the SDK reads its type from the header, whatever the body's format). */
  def kinesisError(code: String, message: String): Answer =
    Answer(
      400,
      s"""{"__type":"$code","message":"$message"}""",
      Map("Content-Type" -> "application/x-amz-json-1.1", "x-amzn-ErrorType" -> code))
}
