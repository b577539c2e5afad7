// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.net.{InetSocketAddress, URI}
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{ConcurrentLinkedQueue, Executors}

import scala.jdk.CollectionConverters._

import com.sun.net.httpserver.{HttpExchange, HttpServer}

/**
 * An HTTP/1.1 proxy on loopback in front of a Kinesis endpoint that keeps each call's action and request
 * body, so that a test can see how the connector's calls name a stream. The body's keys are readable as
 * text whether the SDK sends JSON or CBOR. Not for SubscribeToShard (HTTP/2). Stop it with [[close]].
 */
final class RecordingProxy(target: String) extends AutoCloseable {
  import RecordingProxy.Call

  private val recorded = new ConcurrentLinkedQueue[Call]()
  private val client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
  private val pool = Executors.newFixedThreadPool(8)
  private val server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0)
  server.createContext("/", (exchange: HttpExchange) => forward(exchange))
  server.setExecutor(pool)
  server.start()

  /** The proxy's endpoint, for the option `endpoint`. */
  def endpoint: String = s"http://127.0.0.1:${server.getAddress.getPort}"

  def calls: Seq[Call] = recorded.asScala.toList

  private val notForwarded = Set("connection", "content-length", "expect", "host", "upgrade")

  private def forward(exchange: HttpExchange): Unit =
    try {
      val body = exchange.getRequestBody.readAllBytes()
      val action = Option(exchange.getRequestHeaders.getFirst("X-Amz-Target")).getOrElse("")
      recorded.add(Call(action.substring(action.indexOf('.') + 1), body))
      val request = HttpRequest
        .newBuilder(URI.create(target + exchange.getRequestURI))
        .method(exchange.getRequestMethod, HttpRequest.BodyPublishers.ofByteArray(body))
      exchange.getRequestHeaders.asScala.foreach { case (name, values) =>
        if (!notForwarded(name.toLowerCase)) values.asScala.foreach(request.header(name, _))
      }
      val response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray())
      response.headers().map().asScala.foreach { case (name, values) =>
        if (!name.startsWith(":") && !notForwarded(name.toLowerCase) && name.toLowerCase != "transfer-encoding")
          values.asScala.foreach(exchange.getResponseHeaders.add(name, _))
      }
      val out = response.body()
      exchange.sendResponseHeaders(response.statusCode(), if (out.isEmpty) -1 else out.length.toLong)
      if (out.nonEmpty) exchange.getResponseBody.write(out)
    } finally exchange.close()

  override def close(): Unit = {
    server.stop(0)
    pool.shutdownNow()
  }
}

object RecordingProxy {

  /** A call as sent: its action (`GetRecords`) and its request body. */
  final case class Call(action: String, body: Array[Byte]) {

    /** Whether the request has the field `name`, e.g. `StreamARN`. */
    def has(name: String): Boolean = new String(body, UTF_8).contains(name)
  }
}
