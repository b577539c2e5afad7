// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.io.File
import java.net.URLDecoder
import java.nio.charset.StandardCharsets.UTF_8

/**
 * An STS endpoint for role tests: moto's server ([[MotoServer]]), from the test virtual environment, on a free
 * port of loopback. It answers AssumeRole (and AssumeRoleWithWebIdentity) for any role and records every
 * request, so a test can see what STS received; after [[enforceIam]], it checks them as AWS does, and
 * refuses. Its output goes to target/sts-server-<port>.log.
 */
final class StsServer(root: File) {
  private val server = new MotoServer(root, "sts-server")

  /** Starts the server and returns its endpoint once it listens and records. */
  def start(): String = server.start()

  def endpoint: String = server.endpoint

  /** Every AssumeRole request received, in order: its form parameters, and `SignedBy`, the signing key id. */
  def assumeRoleRequests(): Seq[Map[String, String]] = requests("AssumeRole")

  /** Every request of `action` received, in order: its form parameters, and `SignedBy`, the signing key id. */
  def requests(action: String): Seq[Map[String, String]] =
    server.recorded().flatMap { request =>
      val form = request.body
        .split("&")
        .filter(_.contains("="))
        .map { pair =>
          val Array(k, v) = pair.split("=", 2)
          URLDecoder.decode(k, UTF_8) -> URLDecoder.decode(v, UTF_8)
        }
        .toMap
      if (form.get("Action").contains(action)) Some(form ++ request.signedBy.map("SignedBy" -> _)) else None
    }

  def stop(): Unit = server.stop()

  /**
   * From now on, checks requests as AWS does: signed by a known key, allowed by its policies, and for a role
   * by the role's trust policy. Makes a user `spark` allowed sts:AssumeRole on any role, and `role`, which
   * trusts that user only with the external id `externalId`; returns the user's access key id and secret.
   */
  def enforceIam(role: String, externalId: String): (String, String) = {
    val key = server.iamUser(
      "spark",
      """{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"*"}]}""")
    val account = role.split(':')(4)
    server.iam(
      "CreateRole",
      "RoleName" -> role.substring(role.lastIndexOf('/') + 1),
      "AssumeRolePolicyDocument" ->
        ("""{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::""" + account +
          """:user/spark"},"Action":"sts:AssumeRole","Condition":{"StringEquals":{"sts:ExternalId":"""" +
          externalId + """"}}}]}""")
    )
    server.enforceIam()
    key
  }
}
