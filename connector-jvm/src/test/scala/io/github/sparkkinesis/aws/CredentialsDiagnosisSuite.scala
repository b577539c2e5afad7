// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

import java.util.concurrent.atomic.AtomicInteger

import io.github.sparkkinesis.aws.AwsCredentialsConfig.{AssumedRole, DefaultChain, RoleSession, StaticKeys}
import io.github.sparkkinesis.aws.CredentialsDiagnosis.SdkSettings
import io.github.sparkkinesis.aws.CredentialsFailure.{Expired, Missing, Refused, Unreachable}
import io.github.sparkkinesis.testing.{AwsStub, ServerProcess}
import org.scalatest.funsuite.AnyFunSuite

/**
 * Where credentials failed, as the connector's providers say it: STS assuming a role (a closed port, and a
 * stub STS answering as STS refuses), the default chain as each set-up of it fails (from the SDK's words),
 * an executor without a session. Each says where, how, and what to check, and never a secret.
 */
class CredentialsDiagnosisSuite extends AnyFunSuite {

  private val Role = "arn:aws:iam::123456789012:role/reader"
  private val keys = StaticKeys("AKIDTESTKEYID", new Secret("the-secret-key-value"), None)
  private val sessions = new AtomicInteger()

  /** A role assumed through `sts`; a new session name each time, as the driver keeps one provider per role. */
  private def role(sts: String, externalId: Option[String] = Some("ext-7d1f")): AssumedRole =
    AssumedRole(
      RoleSpec(Role, externalId, s"diagnosis-${sessions.incrementAndGet()}", Some(sts), "us-east-1", 900),
      keys)

  /**
   * What the connector's provider of `config` throws. Called by reflection: the provider's SDK types are the
   * jar's shaded ones, which this suite, compiled against the SDK as it is, cannot name.
   */
  private def failureOf(config: AwsCredentialsConfig): CredentialsFailure = {
    val provider = Credentials.getClass.getMethods.find(_.getName == "provider").get.invoke(Credentials, config)
    intercept[CredentialsFailure] {
      try provider.getClass.getMethod("resolveCredentials").invoke(provider)
      catch { case e: java.lang.reflect.InvocationTargetException => throw e.getCause }
    }
  }

  private def withSts(answer: AwsStub.Answer)(test: AwsStub => Unit): Unit = {
    val sts = new AwsStub(_ => answer)
    try test(sts)
    finally sts.close()
  }

  private def noSecrets(f: CredentialsFailure): Unit =
    Seq(f.failure, f.said, f.check, f.userFacing().getMessage).foreach { text =>
      assert(!text.contains(keys.secretKey.reveal), text)
    }

  test("STS out of reach is an outage of STS: its endpoint, the role and what to check, never Kinesis") {
    val closed = s"http://127.0.0.1:${ServerProcess.freePort()}"
    val f = failureOf(role(closed))
    assert(f.kind == Unreachable && f.transient && !f.renewable)
    assert(f.failure == s"could not reach STS at $closed (region us-east-1) to assume role $Role")
    assert(f.said.contains("Connection refused"), f.said)
    assert(f.check.contains(s"Check the option stsEndpoint ($closed) and the network path to it from the driver"))
    val e = f.userFacing()
    assert(e.getCondition == "KINESIS_CREDENTIALS_UNREACHABLE" && e.getSqlState == "08001")
    assert(
      e.getMessage.startsWith(
        "[KINESIS_CREDENTIALS_UNREACHABLE] The connector cannot get AWS credentials for now: could not reach " +
          s"STS at $closed (region us-east-1) to assume role $Role: Unable to execute HTTP request"),
      e.getMessage
    )
    assert(!e.getMessage.contains("Kinesis at"), e.getMessage)
    noSecrets(f)
  }

  test("STS refusing AssumeRole is no outage: the role, its session and external id, and the trust policy") {
    val denied = "User: arn:aws:iam::123456789012:user/spark is not authorized to perform: sts:AssumeRole on " +
      s"resource: $Role"
    withSts(AwsStub.stsError(403, "AccessDenied", denied)) { sts =>
      val assumed = role(sts.endpoint)
      val f = failureOf(assumed)
      assert(f.kind == Refused && !f.transient)
      assert(
        f.failure == s"STS at ${sts.endpoint} (region us-east-1) refused AssumeRole of role $Role (session " +
          s"${assumed.role.sessionName}, with an external id)")
      assert(f.said.startsWith(denied), f.said)
      Seq("trust policy", "Condition on sts:ExternalId", "roleExternalId", "sts:AssumeRole", "AKID...EYID")
        .foreach(word => assert(f.check.contains(word), s"'$word' in: ${f.check}"))
      val e = f.userFacing()
      assert(e.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE" && e.getSqlState == "28000")
      assert(
        e.getMessage.startsWith("[KINESIS_CREDENTIALS_UNAVAILABLE] The connector has no AWS credentials to " +
          s"call Kinesis with: STS at ${sts.endpoint} (region us-east-1) refused AssumeRole of role $Role"))
      // What STS was asked: the role, its session name and external id, signed with the keys.
      val asked = sts.requests.head
      assert(asked.body.contains("Action=AssumeRole") && asked.body.contains("ExternalId=ext-7d1f"), asked.body)
      assert(asked.headers("authorization").contains("Credential=AKIDTESTKEYID/"))
      noSecrets(f)
    }
  }

  test("without roleExternalId, a refusal says the trust policy may ask for one") {
    withSts(AwsStub.stsError(403, "AccessDenied", "not authorized")) { sts =>
      val f = failureOf(role(sts.endpoint, externalId = None))
      assert(f.check.contains("asks for no external id (if it has a Condition on sts:ExternalId, set roleExternalId"))
    }
  }

  test("STS not accepting the keys the role is assumed with names those keys") {
    withSts(AwsStub.stsError(403, "InvalidClientTokenId", "The security token included in the request is invalid.")) {
      sts =>
        val f = failureOf(role(sts.endpoint))
        assert(f.kind == Refused)
        assert(
          f.failure == s"STS at ${sts.endpoint} (region us-east-1) did not accept the credentials role $Role is " +
            "assumed with (the keys given as awsAccessKey (AKID...EYID) and awsSecretKey)")
        assert(f.check.startsWith("Check awsAccessKey and awsSecretKey"))
    }
  }

  test("STS failing with server errors or throttling is an outage of STS, tried again") {
    withSts(AwsStub.stsError(503, "ServiceUnavailable", "Service is unavailable")) { sts =>
      val f = failureOf(role(sts.endpoint))
      assert(f.kind == Unreachable, f.failure)
      assert(f.failure == s"STS at ${sts.endpoint} (region us-east-1) failed to assume role $Role for now")
      assert(sts.requests.size > 1, "the SDK retried")
    }
    withSts(AwsStub.stsError(400, "Throttling", "Rate exceeded")) { sts =>
      assert(failureOf(role(sts.endpoint)).kind == Unreachable)
    }
  }

  test("STS saying the keys' session expired says those keys expired, and who renews them") {
    withSts(AwsStub.stsError(403, "ExpiredToken", "The security token included in the request is expired")) { sts =>
      val f = failureOf(role(sts.endpoint))
      assert(f.kind == Expired)
      assert(
        f.failure.endsWith("the credentials it is assumed with (the keys given as awsAccessKey (AKID...EYID) " +
          "and awsSecretKey) have expired"))
      assert(f.check.startsWith("The connector cannot renew keys given as options"))
    }
  }

  test("a role STS lets the connector assume gives its session") {
    withSts(AwsStub.assumedRole("ASIDSTUBSESSION1", "2099-01-01T00:00:00Z")) { sts =>
      val session = AssumedRoles.currentSession(role(sts.endpoint))
      assert(session.accessKeyId == "ASIDSTUBSESSION1" && session.sessionToken.reveal == "stub-token")
    }
  }

  test("an executor that has no session of the role yet: the next task brings one") {
    val spec = RoleSpec(Role, None, s"diagnosis-${sessions.incrementAndGet()}", None, "us-east-1", 900)
    val f = failureOf(new RoleSession(spec, SessionCredentials("ASIAX", new Secret("s"), new Secret("t"), 0L)))
    assert(f.kind == Missing && f.renewable && !f.transient)
    assert(f.failure == s"no session of role $Role has reached this executor from the driver")
  }

  // ---- the default chain, from what the SDK says when none of its providers had credentials ----

  private def chainSaying(webIdentity: String, profile: String, container: String): Throwable =
    new RuntimeException(
      "Unable to load credentials from any of the providers in the chain AwsCredentialsProviderChain(" +
        "credentialsProviders=[SystemPropertyCredentialsProvider(), EnvironmentVariableCredentialsProvider(), " +
        "WebIdentityTokenFileCredentialsProvider(), ProfileCredentialsProvider(profileName=default, " +
        "profileFile=ProfileFile(sections=[])), ContainerCredentialsProvider(), " +
        "InstanceProfileCredentialsProvider()]) : [SystemPropertyCredentialsProvider(): Unable to load " +
        "credentials from system settings. Access key must be specified either via environment variable " +
        "(AWS_ACCESS_KEY_ID) or system property (aws.accessKeyId)., EnvironmentVariableCredentialsProvider(): " +
        "Unable to load credentials from system settings. Access key must be specified either via environment " +
        s"variable (AWS_ACCESS_KEY_ID) or system property (aws.accessKeyId)., WebIdentityTokenFileCredentialsProvider(): " +
        s"$webIdentity, ProfileCredentialsProvider(profileName=default, profileFile=ProfileFile(sections=[])): " +
        s"$profile, ContainerCredentialsProvider(): $container, InstanceProfileCredentialsProvider(): Failed to " +
        "load credentials from IMDS.]")

  private val notSet = chainSaying(
    "Either the environment variable AWS_WEB_IDENTITY_TOKEN_FILE or the javaproperty aws.webIdentityTokenFile " +
      "must be set.",
    "Profile file contained no credentials for profile 'default': ProfileFile(sections=[])",
    "Cannot fetch credentials from container - neither AWS_CONTAINER_CREDENTIALS_FULL_URI or " +
      "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI environment variables are set."
  )

  private def settings(env: (String, String)*): SdkSettings = new SdkSettings(_ => None, env.toMap.get)

  test("the default chain finding nothing says where it looked, and what each place answered") {
    val f = CredentialsDiagnosis.resolving(DefaultChain, notSet, settings())
    assert(f.kind == Missing && !f.transient)
    assert(f.failure == "the AWS SDK's default credential chain found no credentials")
    assert(f.said == notSet.getMessage)
    Seq(
      "aws.accessKeyId",
      "AWS_ACCESS_KEY_ID",
      "AWS_WEB_IDENTITY_TOKEN_FILE",
      "AWS_PROFILE",
      "SSO",
      "AWS_CONTAINER_CREDENTIALS_FULL_URI",
      "EKS Pod Identity",
      "instance profile",
      "executors need credentials of their own"
    )
      .foreach(word => assert(f.check.contains(word), s"'$word' in: ${f.check}"))
  }

  private val WebIdentity = Seq(
    "AWS_WEB_IDENTITY_TOKEN_FILE" -> "/var/run/secrets/eks.amazonaws.com/serviceaccount/token",
    "AWS_ROLE_ARN" -> "arn:aws:iam::123456789012:role/irsa",
    "AWS_REGION" -> "eu-west-1"
  )

  test("web identity (EKS service accounts) out of reach of STS: an outage of STS, naming the role and token") {
    val said = "Unable to execute HTTP request: Connect to sts.eu-west-1.amazonaws.com:443 failed: connect timed " +
      "out (SDK Attempt Count: 4)"
    val chain = chainSaying(said, "Profile file contained no credentials for profile 'default'", "neither is set")
    val f = CredentialsDiagnosis.resolving(DefaultChain, chain, settings(WebIdentity: _*))
    assert(f.kind == Unreachable && f.transient)
    assert(
      f.failure == "the default chain's web identity could not reach STS of region eu-west-1 to assume role " +
        "arn:aws:iam::123456789012:role/irsa with the token in /var/run/secrets/eks.amazonaws.com/serviceaccount/token")
    assert(f.said == said, "what web identity answered, without the rest of the chain")
    assert(f.check.contains("AWS_ENDPOINT_URL_STS"))
    val atEndpoint = CredentialsDiagnosis.resolving(
      DefaultChain,
      chain,
      settings(WebIdentity :+ ("AWS_ENDPOINT_URL_STS" -> "https://vpce-1.sts.eu-west-1.vpce.amazonaws.com"): _*))
    assert(atEndpoint.failure.contains("could not reach STS at https://vpce-1.sts.eu-west-1.vpce.amazonaws.com to"))
  }

  test("web identity refused by STS: the trust policy of the role for the service account, executors too") {
    val said = "Not authorized to perform sts:AssumeRoleWithWebIdentity (Service: Sts, Status Code: 403, " +
      "Request ID: r-1)"
    val f = CredentialsDiagnosis.resolving(
      DefaultChain,
      chainSaying(said, "Profile file contained no credentials for profile 'default'", "neither is set"),
      settings(WebIdentity: _*))
    assert(f.kind == Refused && !f.transient)
    assert(
      f.failure.startsWith("STS of region eu-west-1 refused the default chain's web identity: role " +
        "arn:aws:iam::123456789012:role/irsa"))
    Seq(
      "system:serviceaccount:",
      "eks.amazonaws.com/role-arn",
      "spark.kubernetes.authenticate.executor.serviceAccountName")
      .foreach(word => assert(f.check.contains(word), s"'$word' in: ${f.check}"))
  }

  test("container credentials (EKS Pod Identity, ECS) out of reach, and an SSO profile whose login expired") {
    val container = CredentialsDiagnosis.resolving(
      DefaultChain,
      chainSaying(
        "Either the environment variable AWS_WEB_IDENTITY_TOKEN_FILE or the javaproperty must be set.",
        "Profile file contained no credentials for profile 'default'",
        "Failed to load credentials from metadata service: Connect to 169.254.170.23:80 failed: Connection refused"
      ),
      settings("AWS_CONTAINER_CREDENTIALS_FULL_URI" -> "http://169.254.170.23/v1/credentials")
    )
    assert(container.kind == Unreachable)
    assert(
      container.failure == "could not reach the container credentials endpoint http://169.254.170.23/v1/credentials")
    assert(container.check.contains("pod identity association") && container.check.contains("task role"))

    val sso = CredentialsDiagnosis.resolving(
      DefaultChain,
      chainSaying(
        "Either the environment variable AWS_WEB_IDENTITY_TOKEN_FILE or the javaproperty must be set.",
        "The SSO session associated with this profile has expired or is otherwise invalid. To refresh this SSO " +
          "session run aws sso login with the corresponding profile.",
        "neither is set"
      ),
      settings("AWS_PROFILE" -> "analytics")
    )
    assert(sso.kind == Expired)
    assert(sso.failure == "the default chain's profile 'analytics' holds an expired session")
    assert(sso.check.contains("aws sso login --profile analytics"))
  }

  test("the role's own credentials failing first names them, and then the role") {
    val base = CredentialsDiagnosis.resolving(DefaultChain, notSet, settings())
    val assumed = role("http://127.0.0.1:1")
    val f = CredentialsDiagnosis.resolving(assumed, new RuntimeException("wrapped", base))
    assert(f.kind == Missing)
    assert(
      f.failure == "the AWS SDK's default credential chain found no credentials, so role " +
        s"$Role could not be assumed with them")
    assert(f.check == base.check)
  }

  test("sources as messages name them: what the default chain is set up with, keys partly masked") {
    assert(
      CredentialsDiagnosis.describe(DefaultChain, settings()) ==
        "the credentials of the AWS SDK's default credential chain")
    assert(CredentialsDiagnosis.describe(DefaultChain, settings(WebIdentity: _*)) ==
      "the credentials of the AWS SDK's default credential chain (web identity: role " +
      "arn:aws:iam::123456789012:role/irsa with the token in /var/run/secrets/eks.amazonaws.com/serviceaccount/token)")
    assert(
      CredentialsDiagnosis
        .describe(DefaultChain, settings("AWS_ACCESS_KEY_ID" -> "AKIA"))
        .contains("keys in AWS_ACCESS_KEY_ID"))
    assert(
      CredentialsDiagnosis
        .describe(DefaultChain, settings("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI" -> "/v2/credentials/abc"))
        .endsWith("(container credentials from http://169.254.170.2/v2/credentials/abc)"))
    assert(CredentialsDiagnosis.describe(keys) == "the keys given as awsAccessKey (AKID...EYID) and awsSecretKey")
  }
}
