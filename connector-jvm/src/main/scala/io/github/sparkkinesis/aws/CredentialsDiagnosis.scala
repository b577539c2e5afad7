// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

import java.io.InterruptedIOException
import java.net.{ConnectException, NoRouteToHostException, UnknownHostException}
import java.time.Instant

import io.github.sparkkinesis.aws.AwsCredentialsConfig.{AssumedRole, DefaultChain, RoleSession, StaticKeys}
import io.github.sparkkinesis.aws.CredentialsFailure.{Expired, Kind, Missing, Refused, Unreachable}
import software.amazon.awssdk.awscore.exception.AwsServiceException
import software.amazon.awssdk.core.exception.{ApiCallAttemptTimeoutException, ApiCallTimeoutException}

/**
 * Says where credentials failed, how, and what to check ([[CredentialsFailure]]), from what the AWS SDK
 * threw: when a provider of [[Credentials.provider]] could not get any ([[resolving]]), or when Kinesis (or
 * the Glue Schema Registry) refused the ones a call was signed with ([[ofKinesis]], [[ofService]]). The
 * source is named by what the connector was given: STS for an assumed role (its endpoint, the role, the
 * session name, whether with an external id), the default chain and what this JVM sets it up with (web
 * identity, container credentials, a profile, keys), the keys given as options, a session the driver sent to
 * an executor. Stateless.
 *
 * What is transient: the source could not be reached, or failed for now (no connection, a timeout, a 5xx,
 * throttling). Everything else is not: access denied, an unknown key, a bad external id or token, expired
 * credentials, nothing found.
 */
private[sparkkinesis] object CredentialsDiagnosis {

  /** The AWS SDK's settings, as the SDK reads them: a system property, else an environment variable. */
  final class SdkSettings(property: String => Option[String], variable: String => Option[String]) {

    def apply(propertyName: String, variableName: String): Option[String] =
      property(propertyName).orElse(variable(variableName)).map(_.trim).filter(_.nonEmpty)

    /** Web identity (EKS IRSA): the role and the token file. */
    def webIdentity: Option[(String, String)] =
      for {
        file <- apply("aws.webIdentityTokenFile", "AWS_WEB_IDENTITY_TOKEN_FILE")
        role <- apply("aws.roleArn", "AWS_ROLE_ARN")
      } yield (role, file)

    /** Container credentials (ECS task roles, EKS Pod Identity): where they are served. */
    def containerUri: Option[String] =
      apply("aws.containerCredentialsFullUri", "AWS_CONTAINER_CREDENTIALS_FULL_URI").orElse(
        apply("aws.containerCredentialsPath", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI").map("http://169.254.170.2" + _))

    def profile: String = apply("aws.profile", "AWS_PROFILE").getOrElse("default")

    def profileSet: Boolean = apply("aws.profile", "AWS_PROFILE").isDefined

    /** The STS endpoint the SDK's own STS clients call (web identity, profiles with a role). */
    def stsEndpoint: String =
      apply("aws.endpointUrlSts", "AWS_ENDPOINT_URL_STS")
        .orElse(apply("aws.endpointUrl", "AWS_ENDPOINT_URL"))
        .map(e => s"STS at $e")
        .orElse(apply("aws.region", "AWS_REGION").map(r => s"STS of region $r"))
        .getOrElse("STS (of AWS_REGION's region)")

    def keysInProperties: Boolean = apply("aws.accessKeyId", "-").isDefined

    def keysInEnvironment: Boolean = apply("-", "AWS_ACCESS_KEY_ID").isDefined
  }

  object SdkSettings {
    val ofThisJvm: SdkSettings = new SdkSettings(p => Option(System.getProperty(p)), v => Option(System.getenv(v)))
  }

  // ---- a provider could not get credentials ----

  /** A provider of `config` failed with `e`. A [[CredentialsFailure]] of the provider itself is kept. */
  def resolving(
      config: AwsCredentialsConfig,
      e: Throwable,
      settings: SdkSettings = SdkSettings.ofThisJvm): CredentialsFailure =
    config match {
      case assumed: AssumedRole => ofRole(assumed, e, settings)
      case _ if CredentialsFailure.in(e).isDefined => CredentialsFailure.in(e).get
      case DefaultChain => ofChain(e, settings)
      case s: RoleSession =>
        new CredentialsFailure(
          Missing,
          s"no session of role ${s.role.arn} has reached this executor from the driver",
          said(e),
          "Each task brings the driver's current session of the role, and this executor had none yet; Spark " +
            "runs the task again.",
          renewable = true,
          e
        )
      case other =>
        new CredentialsFailure(
          Missing,
          s"could not get ${describe(other, settings)}",
          said(e),
          "Check the options awsAccessKey, awsSecretKey and awsSessionToken.",
          renewable = false,
          e)
    }

  /** AssumeRole failed on the driver: STS's answer, or the credentials the role is assumed with. */
  private def ofRole(assumed: AssumedRole, e: Throwable, settings: SdkSettings): CredentialsFailure = {
    val role = assumed.role
    val sts = stsOf(role)
    val base = describe(assumed.base, settings)
    CredentialsFailure.in(e) match {
      // The credentials the role is assumed with failed first.
      case Some(inner) =>
        new CredentialsFailure(
          inner.kind,
          s"${inner.failure}, so role ${role.arn} could not be assumed with them",
          inner.said,
          inner.check,
          inner.renewable,
          e)
      case None if network(e) =>
        new CredentialsFailure(
          Unreachable,
          s"could not reach $sts to assume role ${role.arn}",
          said(e),
          role.stsEndpoint match {
            case Some(endpoint) =>
              s"Check the option stsEndpoint ($endpoint) and the network path to it from the driver, which " +
                "assumes the role (a VPC endpoint of STS, a proxy, security groups)."
            case None =>
              s"Check the network path from the driver, which assumes the role, to STS of region ${role.region} " +
                "(a VPC endpoint of STS, a proxy, security groups); to reach STS at another endpoint, set stsEndpoint."
          },
          renewable = false,
          e
        )
      case None =>
        serviceError(e) match {
          case Some(s) if serverSide(s) =>
            new CredentialsFailure(
              Unreachable,
              s"$sts failed to assume role ${role.arn} for now",
              said(e),
              s"STS answered with a server error or throttled the call. If it lasts, check STS's health in region " +
                s"${role.region}, or set stsEndpoint to another region's STS.",
              renewable = false,
              e
            )
          case Some(s) if expiredCode(codeOf(s)) =>
            new CredentialsFailure(
              Expired,
              s"$sts refused AssumeRole of role ${role.arn}: the credentials it is assumed with ($base) have expired",
              said(e),
              expiredCheck(assumed.base, settings),
              renewable = false,
              e
            )
          case Some(s) if invalidCredentialCodes(codeOf(s)) =>
            new CredentialsFailure(
              Refused,
              s"$sts did not accept the credentials role ${role.arn} is assumed with ($base)",
              said(e),
              invalidCheck(assumed.base),
              renewable = false,
              e)
          case Some(s) if codeOf(s) == "RegionDisabledException" =>
            new CredentialsFailure(
              Refused,
              s"$sts refused AssumeRole of $role",
              said(e),
              s"STS is not activated in region ${role.region} for the account: activate it (IAM, Account settings), " +
                "or set stsEndpoint to the STS of a region where it is.",
              renewable = false,
              e
            )
          case Some(_) =>
            new CredentialsFailure(
              Refused,
              s"$sts refused AssumeRole of $role",
              said(e),
              refusedCheck(assumed, base),
              false,
              e)
          case None =>
            new CredentialsFailure(
              Missing,
              s"could not assume role ${role.arn} through $sts",
              said(e),
              "Check roleArn and stsEndpoint, and the credentials the role is assumed with: " +
                s"${describe(assumed.base, settings)}.",
              renewable = false,
              e
            )
        }
    }
  }

  private def stsOf(role: RoleSpec): String =
    role.stsEndpoint.fold(s"STS of region ${role.region}")(e => s"STS at $e (region ${role.region})")

  private def refusedCheck(assumed: AssumedRole, base: String): String =
    s"Check that roleArn names the role; that the role's trust policy trusts the credentials it is assumed with " +
      s"($base: its Principal must name their role or user)" +
      assumed.role.externalId.fold(
        " and asks for no external id (if it has a Condition on sts:ExternalId, set roleExternalId to that value)")(_ =>
        " and that its Condition on sts:ExternalId asks for exactly the external id given as roleExternalId") +
      "; and that those credentials are allowed sts:AssumeRole on the role (by a policy of their own, and not " +
      "denied by a service control policy)."

  /** The default chain found none, or the source it was set up with failed. */
  private def ofChain(e: Throwable, settings: SdkSettings): CredentialsFailure = {
    val message = said(e)
    val parts = chainParts(message)
    def failing(provider: String): Option[String] = parts.get(provider)
    val here = inTask
    val webIdentity = settings.webIdentity.flatMap(w => failing("WebIdentityTokenFileCredentialsProvider").map(w -> _))
    val profile = failing("ProfileCredentialsProvider").filter(p => settings.profileSet || !profileAbsent(p))
    val container = settings.containerUri.flatMap(u => failing("ContainerCredentialsProvider").map(u -> _))
    (webIdentity, profile, container) match {
      case (Some(((role, file), answer)), _, _) =>
        val sts = settings.stsEndpoint
        kindOf(answer) match {
          case Unreachable =>
            new CredentialsFailure(
              Unreachable,
              s"the default chain's web identity could not reach $sts to assume role $role with the token in $file$here",
              answer,
              s"Check the network path from this JVM to $sts (a VPC endpoint of STS needs its private DNS name, or " +
                "AWS_ENDPOINT_URL_STS), and AWS_REGION, which picks STS's regional endpoint.",
              renewable = false,
              e
            )
          case Expired =>
            new CredentialsFailure(
              Expired,
              s"the web identity token in $file has expired$here",
              answer,
              "The kubelet renews the token that EKS mounts for a service account while the pod runs; a copy " +
                "elsewhere is not renewed.",
              renewable = false,
              e
            )
          case Missing =>
            new CredentialsFailure(
              Missing,
              s"the default chain's web identity could not assume role $role with the token in $file$here",
              answer,
              s"Check that $file exists and this JVM can read it (EKS mounts it at " +
                "/var/run/secrets/eks.amazonaws.com/serviceaccount/token for a service account with an IAM role).",
              renewable = false,
              e
            )
          case Refused =>
            new CredentialsFailure(
              Refused,
              s"$sts refused the default chain's web identity: role $role with the token in $file$here",
              answer,
              s"Check that role $role trusts the cluster's OIDC provider for this pod's service account: its trust " +
                "policy's Condition on <provider>:sub must match system:serviceaccount:<namespace>:<service account> " +
                "(and <provider>:aud sts.amazonaws.com), and the service account's annotation " +
                "eks.amazonaws.com/role-arn must name the role. Spark's executors run under their own service " +
                "account (spark.kubernetes.authenticate.executor.serviceAccountName), which needs the role too.",
              renewable = false,
              e
            )
        }
      case (None, Some(answer), _) =>
        val p = settings.profile
        val kind = kindOf(answer)
        new CredentialsFailure(
          kind,
          kind match {
            case Unreachable =>
              s"the default chain's profile '$p' could not reach the service it gets credentials from$here"
            case Expired => s"the default chain's profile '$p' holds an expired session$here"
            case Refused => s"the service the default chain's profile '$p' gets credentials from refused them$here"
            case Missing => s"the default chain's profile '$p' gave no credentials$here"
          },
          answer,
          s"Check profile '$p' in ~/.aws/config (or the file AWS_CONFIG_FILE names) where this JVM runs: an SSO " +
            s"profile needs a current login there (aws sso login --profile $p; the token is cached in " +
            "~/.aws/sso/cache); a profile with role_arn needs source_profile or credential_source, and STS " +
            "within reach (AWS_ENDPOINT_URL_STS, AWS_REGION).",
          renewable = false,
          e
        )
      case (None, None, Some((uri, answer))) =>
        val kind = kindOf(answer)
        new CredentialsFailure(
          kind,
          if (kind == Unreachable) s"could not reach the container credentials endpoint $uri$here"
          else s"the container credentials endpoint $uri gave no credentials$here",
          answer,
          s"On EKS Pod Identity, the pod's service account needs a pod identity association with a role, and the " +
            "eks-pod-identity-agent add-on must run on the node (it serves 169.254.170.23); on ECS, the task " +
            "definition needs a task role. The endpoint must answer from this JVM.",
          renewable = false,
          e
        )
      case _ =>
        new CredentialsFailure(
          if (message.startsWith("Unable to load credentials")) Missing else kindOf(message),
          s"the AWS SDK's default credential chain found no credentials$here",
          message,
          ChainCheck,
          renewable = false,
          e
        )
    }
  }

  private val ChainCheck: String =
    "The default chain looks, in order, at the system properties aws.accessKeyId and aws.secretAccessKey; the " +
      "environment variables AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; web identity (AWS_WEB_IDENTITY_TOKEN_FILE " +
      "and AWS_ROLE_ARN, which EKS sets for a service account with an IAM role); the profile AWS_PROFILE names " +
      "(else default) in ~/.aws/config and ~/.aws/credentials, SSO profiles included; container credentials " +
      "(AWS_CONTAINER_CREDENTIALS_FULL_URI or AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: ECS task roles, EKS Pod " +
      "Identity); and the instance profile (EC2, EMR, Glue), each answering as the cause says. Give this JVM " +
      "one of them (without roleArn, executors need credentials of their own too), or set awsAccessKey and " +
      "awsSecretKey."

  /** The answer of each provider of the default chain, from the SDK's message when none had credentials. */
  private[aws] def chainParts(message: String): Map[String, String] = {
    val open = message.indexOf(" : [")
    if (open < 0) Map.empty
    else {
      val list = message.substring(open + 4).stripSuffix("]")
      val starts = ChainProviders
        .flatMap { name =>
          if (list.startsWith(name + "(")) Some(name -> 0)
          else Some(list.indexOf(", " + name + "(")).filter(_ >= 0).map(i => name -> (i + 2))
        }
        .sortBy(_._2)
      starts
        .zip(starts.drop(1).map(_._2 - 2) :+ list.length)
        .map { case ((name, from), until) =>
          val text = list.substring(from, until)
          val answer = text.indexOf("): ") match {
            case -1 => text
            case i => text.substring(i + 3)
          }
          name -> answer
        }
        .toMap
    }
  }

  private val ChainProviders = Seq(
    "SystemPropertyCredentialsProvider",
    "EnvironmentVariableCredentialsProvider",
    "WebIdentityTokenFileCredentialsProvider",
    "ProfileCredentialsProvider",
    "ContainerCredentialsProvider",
    "InstanceProfileCredentialsProvider",
    "LoginCredentialsProvider"
  )

  private def profileAbsent(answer: String): Boolean =
    Seq("contained no credentials for profile", "does not exist", "No AWS profile named", "Profile file contained no")
      .exists(answer.contains)

  /** What a provider's answer of the chain says went wrong. */
  private def kindOf(answer: String): Kind =
    if (NetworkWords.exists(answer.contains) || ServerWords.exists(answer.contains)) Unreachable
    else if (answer.toLowerCase.contains("expired")) Expired
    else if (RefusalWords.exists(answer.contains)) Refused
    else Missing

  private val NetworkWords = Seq(
    "Unable to execute HTTP request",
    "Connection refused",
    "connect timed out",
    "Connect timed out",
    "Read timed out",
    "UnknownHost",
    "No route to host",
    "Failed to connect"
  )

  private val ServerWords = Seq("Status Code: 5", "Status Code: 429", "Throttling", "IDPCommunicationError")

  private val RefusalWords =
    Seq("Status Code: 4", "AccessDenied", "not authorized", "InvalidIdentityToken", "InvalidClientTokenId")

  // ---- Kinesis (or Glue) refused the credentials ----

  /** Whether Kinesis refused a call for its credentials themselves: expired, an unknown key, a bad signature. */
  def rejectsCredentials(e: AwsServiceException): Boolean = rejectsCredentials(codeOf(e))

  /** Whether an AWS error code (`UnrecognizedClientException`, ...) refuses a call's credentials themselves. */
  def rejectsCredentials(code: String): Boolean = expiredCode(code) || invalidCredentialCodes(code)

  /** Kinesis at `target` refused the credentials `config` gave a call ([[rejectsCredentials]]). */
  def ofKinesis(
      config: AwsCredentialsConfig,
      target: String,
      e: AwsServiceException,
      settings: SdkSettings = SdkSettings.ofThisJvm): CredentialsFailure =
    ofService("Kinesis", config, target, codeOf(e), said(e), e, settings)

  /**
   * `service` (Kinesis, Glue) at `target` refused the credentials `config` gave a call with AWS' error `code`
   * ([[rejectsCredentials]]), saying `message`; `e` is the failure, the cause of the one returned.
   */
  def ofService(
      service: String,
      config: AwsCredentialsConfig,
      target: String,
      code: String,
      message: String,
      e: Throwable,
      settings: SdkSettings = SdkSettings.ofThisJvm): CredentialsFailure = {
    val described = describe(config, settings)
    if (expiredCode(code)) config match {
      case s: RoleSession =>
        val newest = AssumedRoles.newestReceived(s.role).getOrElse(s.session)
        new CredentialsFailure(
          Expired,
          s"the session of role ${s.role.arn} that this executor received from the driver expired at " +
            Instant.ofEpochMilli(newest.expiresAtMillis),
          message,
          "The driver assumes the role again halfway through each session, and every task brings its current " +
            "session to the executor; this one had none newer: a task ran longer than a session lasts (an hour), " +
            "or the driver could not renew it (its log says why; check that it reaches STS, and stsEndpoint). " +
            "Spark runs the task again with the driver's current session.",
          renewable = true,
          e
        )
      case _: AssumedRole =>
        new CredentialsFailure(
          Expired,
          s"the session of $described has expired",
          message,
          "The connector assumes the role again before its session expires: check that the driver reaches STS " +
            "(stsEndpoint), and that its clock is right.",
          renewable = false,
          e
        )
      case other =>
        new CredentialsFailure(Expired, s"$described have expired", message, expiredCheck(other, settings), false, e)
    }
    else
      new CredentialsFailure(
        Refused,
        s"$service at $target did not accept $described",
        message,
        invalidCheck(config),
        renewable = false,
        e)
  }

  // ---- sources, as messages name them ----

  /** The credentials `config` gives, as a message names them. */
  def describe(config: AwsCredentialsConfig, settings: SdkSettings = SdkSettings.ofThisJvm): String = config match {
    case DefaultChain => "the credentials of the AWS SDK's default credential chain" + chainSetUp(settings)
    case StaticKeys(id, _, token) =>
      s"the keys given as awsAccessKey (${AwsCredentialsConfig.maskedKeyId(id)}) and awsSecretKey" +
        token.fold("")(_ => " with awsSessionToken")
    case AssumedRole(role, _) => s"role ${role.arn}"
    case s: RoleSession => s"the session of role ${s.role.arn} that the driver sent"
  }

  /** What this JVM sets the default chain up with, first of what the chain looks at; empty if nothing. */
  private def chainSetUp(settings: SdkSettings): String = {
    val setUp =
      if (settings.keysInProperties) Some("keys in the system properties aws.accessKeyId and aws.secretAccessKey")
      else if (settings.keysInEnvironment) Some("keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
      else
        settings.webIdentity
          .map { case (role, file) => s"web identity: role $role with the token in $file" }
          .orElse(if (settings.profileSet) Some(s"profile '${settings.profile}'") else None)
          .orElse(settings.containerUri.map(u => s"container credentials from $u"))
    setUp.fold("")(s => s" ($s)")
  }

  private def expiredCheck(config: AwsCredentialsConfig, settings: SdkSettings): String = config match {
    case StaticKeys(_, _, _) =>
      "The connector cannot renew keys given as options: give new ones, or let it renew its credentials: with " +
        "roleArn it assumes the role again before each session expires, and the default chain's web identity, " +
        "container and instance credentials are renewed by the AWS SDK."
    case DefaultChain =>
      "The AWS SDK renews web identity, container (ECS, EKS Pod Identity) and instance profile credentials " +
        "itself; temporary keys in environment variables, system properties or a profile are not renewed: renew " +
        s"them (an SSO profile with aws sso login --profile ${settings.profile}), or use a source the SDK renews. A " +
        "clock that is wrong makes fresh credentials look expired too."
    case _ => "Check the clock of the machine that signed the call."
  }

  private def invalidCheck(config: AwsCredentialsConfig): String = config match {
    case StaticKeys(_, _, token) =>
      "Check awsAccessKey and awsSecretKey (a secret key of another key fails every signature)" +
        token.fold("")(_ => " and awsSessionToken, which must come with them") +
        ", and that the key is active in IAM."
    case DefaultChain =>
      "The chain's first source with credentials is the one used (system properties and environment variables " +
        "come before web identity, profiles, container and instance credentials): check that its keys are " +
        "active, and belong to the partition and region of the endpoint."
    case _ =>
      "Check that the endpoint and region belong to the partition the role is in, and the clock of the machine " +
        "that signed the call."
  }

  // ---- what the SDK threw ----

  /** Where a failure happened: in a Spark task, or not (the driver planning, a manager's call). */
  private def inTask: String = if (org.apache.spark.TaskContext.get() != null) " (in a Spark task)" else ""

  private def causes(t: Throwable): Iterator[Throwable] = Iterator.iterate(t)(_.getCause).takeWhile(_ != null).take(20)

  /** The connection could not be made or timed out. */
  private[aws] def network(t: Throwable): Boolean = causes(t).exists {
    case _: ConnectException | _: UnknownHostException | _: NoRouteToHostException => true
    case _: ApiCallTimeoutException | _: ApiCallAttemptTimeoutException => true
    case _: InterruptedIOException => true // socket, connect and read timeouts
    case c => String.valueOf(c.getMessage).startsWith("Unable to execute HTTP request")
  }

  private def serviceError(t: Throwable): Option[AwsServiceException] =
    causes(t).collectFirst { case s: AwsServiceException => s }

  private def codeOf(e: AwsServiceException): String =
    Option(e.awsErrorDetails()).flatMap(d => Option(d.errorCode())).getOrElse("")

  private def serverSide(e: AwsServiceException): Boolean =
    e.statusCode() >= 500 || e.statusCode() == 429 || e.isThrottlingException ||
      Set("Throttling", "ThrottlingException", "RequestLimitExceeded", "IDPCommunicationError")(codeOf(e))

  private def expiredCode(code: String): Boolean = code.startsWith("ExpiredToken")

  private val invalidCredentialCodes = Set(
    "InvalidClientTokenId",
    "SignatureDoesNotMatch",
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "IncompleteSignature",
    "IncompleteSignatureException",
    "MissingAuthenticationToken",
    "MissingAuthenticationTokenException",
    "InvalidAccessKeyId"
  )

  private def said(e: Throwable): String = Option(e.getMessage).filter(_.nonEmpty).getOrElse(e.getClass.getName)
}
