// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import java.security.MessageDigest
import java.util.concurrent.TimeUnit

import io.github.sparkkinesis.testing.{AwsStub, CredentialsProbe, KinesisEmulator, ServerProcess, StsServer}
import org.scalatest.funsuite.AnyFunSuite

/**
 * The AWS SDK's default credential chain in the connector's shaded jar, set up as the platforms set it up,
 * each in a JVM of its own started with the platform's environment ([[CredentialsProbe]]): web identity as
 * on EKS with a service account's IAM role (a token file and AWS_ROLE_ARN, STS being moto on loopback),
 * container credentials as EKS Pod Identity serves them, and an SSO profile. The SDK finds the providers of
 * web identity and SSO by class name, which the jar's shading renames: these show that it still finds them.
 * Against the emulator only, which takes whatever credentials these come to.
 */
class DefaultChainIntegrationSuite extends AnyFunSuite with KinesisEmulator {

  private val root = new File(sys.props.getOrElse("kinesis.test.root", "."))
  private val sts = new StsServer(root)
  private val emulated = sys.env.get("KINESIS_ENDPOINT").forall(_.isEmpty)

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    if (emulated) sts.start()
  }

  override protected def afterAll(): Unit =
    try sts.stop()
    finally super.afterAll()

  /** A home folder of its own for a probe: no profile, no SSO cache but what a test puts there. */
  private def newHome(): Path = Files.createTempDirectory("probe-home")

  /**
   * Runs [[CredentialsProbe]] on `stream`, in a JVM with only `env` (and PATH, HOME) for an environment, and
   * returns what it printed.
   */
  private def probe(stream: String, home: Path, env: (String, String)*): String = {
    val java = new File(sys.props("java.home"), "bin/java").getPath
    val builder = new ProcessBuilder(
      java,
      "-Daws.ec2MetadataDisabled=true",
      "-cp",
      sys.props("java.class.path"),
      CredentialsProbe.getClass.getName.stripSuffix("$"),
      endpoint,
      region,
      stream)
    val environment = builder.environment()
    environment.clear()
    environment.put("PATH", sys.env.getOrElse("PATH", "/usr/bin:/bin"))
    environment.put("HOME", home.toString)
    env.foreach { case (k, v) => environment.put(k, v) }
    builder.redirectErrorStream(true)
    val process = builder.start()
    val output = new String(process.getInputStream.readAllBytes(), UTF_8)
    assert(process.waitFor(120, TimeUnit.SECONDS), "the probe ended")
    output.linesIterator.find(_.startsWith("PROBE ")).getOrElse(fail(s"the probe printed no outcome:\n$output"))
  }

  private def tokenFile(content: String): Path = {
    val file = Files.createTempFile("token", ".jwt")
    Files.write(file, content.getBytes(UTF_8))
    file
  }

  private val IrsaRole = "arn:aws:iam::123456789012:role/eks-kinesis-reader"

  test("web identity, as EKS sets it up for a service account: the role is assumed with the token", Integration) {
    assume(emulated, "needs the STS server on loopback, and an endpoint that takes its sessions")
    val stream = newStream(shards = 2)
    val token = tokenFile("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6ZGF0YTpzcGFyayJ9.c2ln")
    val outcome = probe(
      stream,
      newHome(),
      "AWS_WEB_IDENTITY_TOKEN_FILE" -> token.toString,
      "AWS_ROLE_ARN" -> IrsaRole,
      "AWS_ROLE_SESSION_NAME" -> "spark-driver",
      "AWS_REGION" -> region,
      "AWS_ENDPOINT_URL_STS" -> sts.endpoint
    )
    assert(outcome == "PROBE OK 2", outcome)
    val asked = sts.requests("AssumeRoleWithWebIdentity")
    assert(asked.exists(r => r.get("RoleArn").contains(IrsaRole) && r.get("RoleSessionName").contains("spark-driver")))
    assert(asked.exists(_.get("WebIdentityToken").exists(_.startsWith("eyJhbGciOiJSUzI1NiJ9."))))
  }

  test("web identity with STS out of reach: the error names the token, the role and STS, not Kinesis", Integration) {
    assume(emulated, "needs an endpoint that takes any credentials")
    val stream = newStream(shards = 1)
    val token = tokenFile("eyJhbGciOiJSUzI1NiJ9.e30.c2ln")
    val closed = s"http://127.0.0.1:${ServerProcess.freePort()}"
    val outcome = probe(
      stream,
      newHome(),
      "AWS_WEB_IDENTITY_TOKEN_FILE" -> token.toString,
      "AWS_ROLE_ARN" -> IrsaRole,
      "AWS_REGION" -> region,
      "AWS_ENDPOINT_URL_STS" -> closed
    )
    assert(
      outcome.startsWith(
        "PROBE FAILED [KINESIS_CREDENTIALS_UNREACHABLE] The connector cannot get AWS credentials for now: the " +
          s"default chain's web identity could not reach STS at $closed to assume role $IrsaRole with the token " +
          s"in $token: "),
      outcome
    )
    assert(outcome.contains("Check the network path from this JVM to STS at"), outcome)
    assert(!outcome.contains(endpoint), "the Kinesis endpoint is not what failed")
  }

  test("container credentials, as EKS Pod Identity serves them, with the pod's authorization token", Integration) {
    assume(emulated, "needs an endpoint that takes any credentials")
    val stream = newStream(shards = 1)
    val agent = new AwsStub(_ =>
      AwsStub.Answer(
        200,
        """{"AccessKeyId":"ASIDPODIDENTITY1","SecretAccessKey":"pod-secret","Token":"pod-session",""" +
          """"AccountId":"123456789012","Expiration":"2099-01-01T00:00:00Z"}""",
        Map("Content-Type" -> "application/json")
      ))
    try {
      val authorization = tokenFile("pod-identity-token")
      val outcome = probe(
        stream,
        newHome(),
        "AWS_CONTAINER_CREDENTIALS_FULL_URI" -> s"${agent.endpoint}/v1/credentials",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE" -> authorization.toString,
        "AWS_REGION" -> region
      )
      assert(outcome == "PROBE OK 1", outcome)
      assert(agent.requests.exists(r =>
        r.path == "/v1/credentials" && r.headers.get("authorization").contains("pod-identity-token")))
    } finally agent.close()
  }

  test("an SSO profile (an sso-session, logged in): the role's credentials come from the SSO portal", Integration) {
    assume(emulated, "needs an endpoint that takes any credentials")
    val stream = newStream(shards = 1)
    val portal = new AwsStub(_ =>
      AwsStub.Answer(
        200,
        """{"roleCredentials":{"accessKeyId":"ASIDSSOPORTAL1","secretAccessKey":"sso-secret",""" +
          """"sessionToken":"sso-session","expiration":4102444800000}}""",
        Map("Content-Type" -> "application/json")
      ))
    try {
      val home = newHome()
      val aws = Files.createDirectories(home.resolve(".aws"))
      Files.write(
        aws.resolve("config"),
        ("[profile analytics]\nsso_session = corp\nsso_account_id = 123456789012\nsso_role_name = KinesisReader\n" +
          s"region = $region\n\n[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\n" +
          "sso_region = us-east-1\nsso_registration_scopes = sso:account:access\n").getBytes(UTF_8)
      )
      // What `aws sso login --profile analytics` leaves: the session's token, cached under the SHA-1 of its name.
      val cache = Files.createDirectories(aws.resolve("sso").resolve("cache"))
      val name = MessageDigest.getInstance("SHA-1").digest("corp".getBytes(UTF_8)).map("%02x".format(_)).mkString
      Files.write(
        cache.resolve(s"$name.json"),
        ("""{"startUrl":"https://corp.awsapps.com/start","region":"us-east-1","accessToken":"sso-access-token",""" +
          """"expiresAt":"2099-01-01T00:00:00Z","clientId":"c","clientSecret":"s","refreshToken":"r"}""").getBytes(
          UTF_8)
      )
      val outcome = probe(
        stream,
        home,
        "AWS_PROFILE" -> "analytics",
        "AWS_ENDPOINT_URL_SSO" -> portal.endpoint
      )
      assert(outcome == "PROBE OK 1", outcome)
      val asked = portal.requests.find(_.path.startsWith("/federation/credentials")).getOrElse(fail("no call"))
      assert(asked.path.contains("role_name=KinesisReader") && asked.path.contains("account_id=123456789012"), asked)
      assert(asked.headers.get("x-amz-sso_bearer_token").contains("sso-access-token"), asked.headers)
    } finally portal.close()
  }
}
