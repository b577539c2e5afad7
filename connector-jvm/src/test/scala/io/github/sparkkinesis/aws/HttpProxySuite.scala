// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

import java.io.{InputStream, OutputStream}
import java.net.{InetAddress, InetSocketAddress, ServerSocket, Socket}
import java.nio.charset.StandardCharsets.ISO_8859_1
import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._
import scala.util.Try

import io.github.sparkkinesis.client.{KinesisClientFactory, SdkKinesisApi}
import io.github.sparkkinesis.testing.AwsStub
import org.scalatest.funsuite.AnyFunSuite

class HttpProxySuite extends AnyFunSuite {

  private def proxy(scheme: String, properties: (String, String)*)(env: (String, String)*): Option[HttpProxy] =
    HttpProxy.of(scheme, properties.toMap.get, env.toMap.get)

  test("an HTTPS endpoint goes through https.proxyHost, an HTTP one through http.proxyHost, as the JVM has it") {
    val both = Seq("https.proxyHost" -> "secure.proxy", "https.proxyPort" -> "3128", "http.proxyHost" -> "plain.proxy")
    assert(proxy("https", both: _*)().map(p => (p.host, p.port)).contains(("secure.proxy", 3128)))
    assert(proxy("http", both: _*)().map(p => (p.host, p.port)).contains(("plain.proxy", 80)))
    assert(proxy("https", "http.proxyHost" -> "plain.proxy")().isEmpty, "http.proxyHost is not for HTTPS")
    assert(proxy("https")().isEmpty && proxy("http")().isEmpty)
  }

  test("without the properties, the environment's HTTPS_PROXY or HTTP_PROXY, user and password included") {
    val found = proxy("https")("HTTPS_PROXY" -> "http://me:p%40ss@corp.proxy:8080", "HTTP_PROXY" -> "other:1")
    assert(
      found
        .map(p => (p.host, p.port, p.user, p.password.map(_.reveal)))
        .contains(("corp.proxy", 8080, Some("me"), Some("p@ss"))))
    assert(!found.get.toString.contains("p@ss"), "the password is never shown")
    assert(proxy("https")("https_proxy" -> "corp.proxy:8080").map(_.host).contains("corp.proxy"))
    assert(proxy("http")("HTTP_PROXY" -> "other:1").map(p => (p.host, p.port)).contains(("other", 1)))
    assert(proxy("https", "https.proxyHost" -> "prop")("HTTPS_PROXY" -> "env:1").map(_.host).contains("prop"))
  }

  test("hosts to reach directly: http.nonProxyHosts, else NO_PROXY, as patterns of the host") {
    def direct(p: Option[HttpProxy], host: String) = p.get.direct.exists(host.matches)
    val java = proxy("https", "https.proxyHost" -> "p", "http.nonProxyHosts" -> "localhost|*.internal|10.*")()
    assert(direct(java, "localhost") && direct(java, "kinesis.internal") && direct(java, "10.1.2.3"))
    assert(!direct(java, "kinesis.eu-west-1.amazonaws.com") && !direct(java, "internal") && !direct(java, "110.1.2.3"))
    val env = proxy("https")("HTTPS_PROXY" -> "p:1", "NO_PROXY" -> "localhost, .internal,example.com")
    assert(direct(env, "localhost") && direct(env, "a.internal") && direct(env, "example.com"))
    assert(direct(env, "kinesis.example.com") && !direct(env, "notexample.com") && !direct(env, "amazonaws.com"))
    assert(direct(proxy("https")("HTTPS_PROXY" -> "p:1", "NO_PROXY" -> "*"), "anything"))
  }

  test("the connector's Kinesis client reaches an endpoint only the proxy can reach, through it") {
    withStubAndRelay { (stub, relay) =>
      val through = HttpProxy("127.0.0.1", relay.port, Set.empty, None, None)
      val api = client("http://kinesis.behind.proxy:4567", Some(through))
      try assert(api.getRecords("orders", "shardId-000000000000", "iterator", 100).nextIterator.contains("next"))
      finally api.close()
      assert(relay.seen.exists(_.startsWith("POST http://kinesis.behind.proxy:4567/ HTTP/1.1")), relay.seen)
      assert(stub.requests.exists(_.headers.get("x-amz-target").exists(_.endsWith("GetRecords"))))
    }
  }

  test("a host the settings name as direct is reached without the proxy") {
    withStubAndRelay { (stub, relay) =>
      val settings = Map(
        "http.proxyHost" -> "127.0.0.1",
        "http.proxyPort" -> relay.port.toString,
        "http.nonProxyHosts" -> "localhost|127.*")
      val api = client(stub.endpoint, HttpProxy.of("http", settings.get, _ => None))
      try assert(api.getRecords("orders", "shardId-000000000000", "iterator", 100).records.isEmpty)
      finally api.close()
      assert(relay.seen.isEmpty, relay.seen)
    }
  }

  private def client(endpoint: String, through: Option[HttpProxy]): SdkKinesisApi =
    KinesisClientFactory.sdk(
      AwsConfig("us-east-1", Some(endpoint), AwsCredentialsConfig.StaticKeys("test", new Secret("test"), None)),
      "spark-kinesis-tests/proxy",
      through)

  /** An empty GetRecords answer, in JSON (which the connector reads itself, whatever it asked for). */
  private val getRecordsAnswer = AwsStub.Answer(
    200,
    """{"Records":[],"NextShardIterator":"next","MillisBehindLatest":0}""",
    Map("Content-Type" -> "application/x-amz-json-1.1"))

  private def withStubAndRelay(body: (AwsStub, Relay) => Unit): Unit = {
    val stub = new AwsStub(_ => getRecordsAnswer)
    val relay = new Relay(stub.endpoint.split(':').last.toInt)
    try body(stub, relay)
    finally {
      relay.close()
      stub.close()
    }
  }
}

/**
 * An HTTP proxy as plain as can be: it relays each connection, whatever host its requests name, to one port
 * of this machine, and keeps the first line of each (the request line, with the absolute URL a client sends a
 * proxy).
 */
private final class Relay(target: Int) extends AutoCloseable {
  private val server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress)
  private val firstLines = new ConcurrentLinkedQueue[String]()
  val port: Int = server.getLocalPort

  private val acceptor = new Thread(() =>
    while (!server.isClosed) Try(server.accept()).foreach { client =>
      val upstream = new Socket()
      upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress, target))
      pipe(client.getInputStream, upstream.getOutputStream, record = true)
      pipe(upstream.getInputStream, client.getOutputStream, record = false)
    })
  acceptor.setDaemon(true)
  acceptor.start()

  def seen: Seq[String] = firstLines.asScala.toSeq

  private def pipe(in: InputStream, out: OutputStream, record: Boolean): Unit = {
    val thread = new Thread(() =>
      Try {
        val buffer = new Array[Byte](8192)
        var first = record
        var n = in.read(buffer)
        while (n >= 0) {
          if (first) {
            firstLines.add(new String(buffer, 0, n, ISO_8859_1).takeWhile(_ != '\r'))
            first = false
          }
          out.write(buffer, 0, n)
          out.flush()
          n = in.read(buffer)
        }
        out.close()
      })
    thread.setDaemon(true)
    thread.start()
  }

  override def close(): Unit = server.close()
}
