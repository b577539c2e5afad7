// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.io.File
import java.net.{URI, URLDecoder, URLEncoder}
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Base64

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

/**
 * An STS endpoint for role tests: moto's server, from the test virtual environment, on a free port of
 * loopback, run as a [[ServerProcess]]. It answers AssumeRole (and AssumeRoleWithWebIdentity) for any role
 * and records every request, so a test can see what STS received; after [[enforceIam]], it checks them as
 * AWS does, and refuses. Its output goes to target/sts-server-<port>.log.
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
  def assumeRoleRequests(): Seq[Map[String, String]] = requests("AssumeRole")

  /** Every request of `action` received, in order: its form parameters, and `SignedBy`, the signing key id. */
  def requests(action: String): Seq[Map[String, String]] = {
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
      if (form.get("Action").contains(action)) Some(form ++ signedBy.map("SignedBy" -> _)) else None
    }
  }

  def stop(): Unit = server.stop()

  /**
   * From now on, checks requests as AWS does: signed by a known key, allowed by its policies, and for a role
   * by the role's trust policy. Makes a user `spark` allowed sts:AssumeRole on any role, and `role`, which
   * trusts that user only with the external id `externalId`; returns the user's access key id and secret.
   */
  def enforceIam(role: String, externalId: String): (String, String) = {
    iam("CreateUser", "UserName" -> "spark")
    val key = iam("CreateAccessKey", "UserName" -> "spark")
    def field(name: String) = s"<$name>([^<]+)</$name>".r.findFirstMatchIn(key).map(_.group(1)).get
    iam(
      "PutUserPolicy",
      "UserName" -> "spark",
      "PolicyName" -> "assume-roles",
      "PolicyDocument" ->
        """{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"*"}]}"""
    )
    val account = role.split(':')(4)
    iam(
      "CreateRole",
      "RoleName" -> role.substring(role.lastIndexOf('/') + 1),
      "AssumeRolePolicyDocument" ->
        ("""{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::""" + account +
          """:user/spark"},"Action":"sts:AssumeRole","Condition":{"StringEquals":{"sts:ExternalId":"""" +
          externalId + """"}}}]}""")
    )
    post("/moto-api/reset-auth", "0")
    (field("AccessKeyId"), field("SecretAccessKey"))
  }

  /** An IAM call, before IAM is enforced (moto names the service by the signature's scope, not checked yet). */
  private def iam(action: String, parameters: (String, String)*): String = {
    val form = (("Action" -> action) +: ("Version" -> "2010-05-08") +: parameters)
      .map { case (k, v) => s"${URLEncoder.encode(k, UTF_8)}=${URLEncoder.encode(v, UTF_8)}" }
      .mkString("&")
    val response = http.send(
      HttpRequest
        .newBuilder(URI.create(endpoint))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header(
          "Authorization",
          "AWS4-HMAC-SHA256 Credential=AKIDTESTKEYID/20260101/us-east-1/iam/aws4_request, " +
            "SignedHeaders=host, Signature=0")
        .POST(HttpRequest.BodyPublishers.ofString(form))
        .build(),
      HttpResponse.BodyHandlers.ofString()
    )
    require(response.statusCode() == 200, s"IAM $action: ${response.statusCode()} ${response.body()}")
    response.body()
  }

  private def post(path: String, body: String = ""): Unit = {
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
}
