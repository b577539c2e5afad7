// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.io.File
import java.net.{URI, URLEncoder}
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Base64

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

/**
 * moto's server, from the test virtual environment, on a free port of loopback, run as a [[ServerProcess]]
 * with its recorder on, so that a test can see every request it received: what [[StsServer]] and
 * [[GlueServer]] are made of. moto tells services apart by the scope of a request's SigV4 signature
 * (`.../us-east-1/glue/aws4_request`), and, unless told to ([[post]] `/moto-api/reset-auth`), checks no
 * signature. Its output goes to connector-jvm/target/`name`-<port>.log.
 */
final class MotoServer(root: File, name: String) {
  private val server = new ServerProcess(name)
  private val http = HttpClient.newHttpClient()
  @volatile private var port = 0

  /** Starts the server and returns its endpoint once it listens and records. */
  def start(): String = {
    val motoServer = new File(root, ".venv/bin/moto_server")
    require(motoServer.canExecute, s"$motoServer is missing: dev/test installs it with python/requirements-dev.txt")
    port = ServerProcess.freePort()
    val target = new File(root, "connector-jvm/target")
    server.start(
      Seq(motoServer.getPath, "-H", "127.0.0.1", "-p", port.toString),
      Map("MOTO_RECORDER_FILEPATH" -> new File(target, s"$name-recording-$port").getPath),
      port,
      new File(target, s"$name-$port.log")
    )
    post("/moto-api/recorder/start-recording")
    endpoint
  }

  def endpoint: String = s"http://127.0.0.1:$port"

  /** Every request received since the recording started or was last [[clearRecording cleared]], in order. */
  def recorded(): Seq[MotoServer.Request] = {
    val recording = http.send(
      HttpRequest.newBuilder(URI.create(s"$endpoint/moto-api/recorder/download-recording")).GET().build(),
      HttpResponse.BodyHandlers.ofString())
    val mapper = new ObjectMapper()
    recording.body().linesIterator.filter(_.trim.nonEmpty).map(l => mapper.readTree(l)).toSeq.map { entry =>
      val raw = Option(entry.get("body")).map(_.asText).getOrElse("")
      val body =
        if (entry.path("body_encoded").asBoolean(false)) new String(Base64.getDecoder.decode(raw), UTF_8) else raw
      val headers = entry.path("headers").properties().asScala.map(h => h.getKey -> h.getValue.asText).toMap
      MotoServer.Request(entry.path("method").asText, entry.path("url").asText, headers, body)
    }
  }

  /** Forgets the requests recorded so far. */
  def clearRecording(): Unit = post("/moto-api/recorder/reset-recording")

  /**
   * A call of `service` in `region`, for a fixture's own set-up (IAM users, Glue registries): sent with an
   * Authorization header whose scope names them, which is all moto routes by, and whose signature is not
   * one, which moto accepts until IAM is enforced. Returns the answer's status and body.
   */
  def unsigned(
      service: String,
      region: String,
      contentType: String,
      body: String,
      headers: (String, String)*): (Int, String) = {
    val request = HttpRequest
      .newBuilder(URI.create(endpoint))
      .header("Content-Type", contentType)
      .header(
        "Authorization",
        s"AWS4-HMAC-SHA256 Credential=AKIDTESTKEYID/20260101/$region/$service/aws4_request, " +
          "SignedHeaders=host, Signature=0")
    headers.foreach { case (k, v) => request.header(k, v) }
    val response =
      http.send(request.POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString())
    (response.statusCode(), response.body())
  }

  /** An IAM call, before IAM is enforced; returns IAM's answer (XML). */
  def iam(action: String, parameters: (String, String)*): String = {
    val form = (("Action" -> action) +: ("Version" -> "2010-05-08") +: parameters)
      .map { case (k, v) => s"${URLEncoder.encode(k, UTF_8)}=${URLEncoder.encode(v, UTF_8)}" }
      .mkString("&")
    val (status, body) = unsigned("iam", "us-east-1", "application/x-www-form-urlencoded", form)
    require(status == 200, s"IAM $action: $status $body")
    body
  }

  /**
   * Makes an IAM user `name` (of account 123456789012, moto's) with `policy` as its inline policy and an
   * access key; returns the key's id and secret.
   */
  def iamUser(name: String, policy: String): (String, String) = {
    iam("CreateUser", "UserName" -> name)
    val key = iam("CreateAccessKey", "UserName" -> name)
    def field(name: String) = s"<$name>([^<]+)</$name>".r.findFirstMatchIn(key).map(_.group(1)).get
    iam("PutUserPolicy", "UserName" -> name, "PolicyName" -> s"$name-policy", "PolicyDocument" -> policy)
    (field("AccessKeyId"), field("SecretAccessKey"))
  }

  /**
   * From now on, checks every request as AWS does: signed, with a valid signature, by a key IAM knows, and
   * allowed by its policies. moto then answers refusals in the XML of AWS' query protocol, whatever the
   * service's protocol.
   */
  def enforceIam(): Unit = post("/moto-api/reset-auth", "0")

  /** A POST to moto's own API (`/moto-api/...`); fails unless it answers 200. */
  def post(path: String, body: String = ""): Unit = {
    val response = http.send(
      HttpRequest
        .newBuilder(URI.create(s"$endpoint$path"))
        .header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build(),
      HttpResponse.BodyHandlers.ofString()
    )
    require(response.statusCode() == 200, s"$path: ${response.statusCode()} ${response.body()}")
  }

  def stop(): Unit = server.stop()
}

object MotoServer {

  /** A request moto received: its method, URL, headers and body (as text). */
  final case class Request(method: String, url: String, headers: Map[String, String], body: String) {

    /** A header, whatever the case of its name. */
    def header(name: String): Option[String] = headers.collectFirst { case (k, v) if k.equalsIgnoreCase(name) => v }

    /** The key id the request was signed with, from its SigV4 Authorization header. */
    def signedBy: Option[String] =
      header("Authorization").flatMap(a => """Credential=([^/]+)/""".r.findFirstMatchIn(a).map(_.group(1)))

    /** The scope of its signature: region and service, as in `us-east-1/glue`. */
    def signedFor: Option[String] =
      header("Authorization").flatMap(a =>
        """Credential=[^/]+/\d+/([^/]+/[^/]+)/""".r.findFirstMatchIn(a).map(_.group(1)))
  }
}
