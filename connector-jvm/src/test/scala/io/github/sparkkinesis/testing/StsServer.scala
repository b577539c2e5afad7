// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.io.File
import java.net.{URI, URLDecoder}
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Base64

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

/**
 * An STS endpoint for role tests: moto's server, from the test virtual environment, on a free port of
 * loopback, run as a [[ServerProcess]]. It answers AssumeRole for any role and records every request, so a
 * test can see what STS received. Its output goes to target/sts-server-<port>.log.
 */
final class StsServer(root: File) {
  private val server = new ServerProcess("sts-server")
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
      Map("MOTO_RECORDER_FILEPATH" -> new File(target, s"sts-recording-$port").getPath),
      port,
      new File(target, s"sts-server-$port.log")
    )
    post("/moto-api/recorder/start-recording")
    endpoint
  }

  def endpoint: String = s"http://127.0.0.1:$port"

  /** Every AssumeRole request received, in order: its form parameters, and `SignedBy`, the signing key id. */
  def assumeRoleRequests(): Seq[Map[String, String]] = {
    val recording = http.send(
      HttpRequest.newBuilder(URI.create(s"$endpoint/moto-api/recorder/download-recording")).GET().build(),
      HttpResponse.BodyHandlers.ofString())
    val mapper = new ObjectMapper()
    recording.body().linesIterator.filter(_.trim.nonEmpty).map(l => mapper.readTree(l)).toSeq.flatMap { entry =>
      val raw = Option(entry.get("body")).map(_.asText).getOrElse("")
      val body =
        if (entry.path("body_encoded").asBoolean(false)) new String(Base64.getDecoder.decode(raw), UTF_8) else raw
      val form = body
        .split("&")
        .filter(_.contains("="))
        .map { pair =>
          val Array(k, v) = pair.split("=", 2)
          URLDecoder.decode(k, UTF_8) -> URLDecoder.decode(v, UTF_8)
        }
        .toMap
      val signedBy = entry
        .path("headers")
        .properties()
        .asScala
        .find(_.getKey.equalsIgnoreCase("Authorization"))
        .flatMap(h => """Credential=([^/]+)/""".r.findFirstMatchIn(h.getValue.asText).map(_.group(1)))
      if (form.get("Action").contains("AssumeRole")) Some(form ++ signedBy.map("SignedBy" -> _)) else None
    }
  }

  def stop(): Unit = server.stop()

  private def post(path: String): Unit = {
    val response = http.send(
      HttpRequest.newBuilder(URI.create(s"$endpoint$path")).POST(HttpRequest.BodyPublishers.noBody()).build(),
      HttpResponse.BodyHandlers.ofString())
    require(response.statusCode() == 200, s"$path: ${response.statusCode()} ${response.body()}")
  }
}
