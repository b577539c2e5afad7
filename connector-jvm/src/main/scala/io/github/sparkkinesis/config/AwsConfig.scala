package io.github.sparkkinesis.config

import io.github.sparkkinesis.client.AssumedRoles
import io.github.sparkkinesis.config.AwsCredentialsConfig.AssumedRole
import io.github.sparkkinesis.errors.KinesisErrors

/**
 * How the connector authenticates to AWS. Serializable: executors build their own clients from it, but an
 * assumed role travels as its current session only (see [[AwsCredentialsConfig.AssumedRole]]).
 */
private[sparkkinesis] sealed trait AwsCredentialsConfig extends Serializable

private[sparkkinesis] object AwsCredentialsConfig {

  /** The AWS SDK's default chain: environment, system properties, profile, web identity, container, instance. */
  case object DefaultChain extends AwsCredentialsConfig

  /** Keys given as options. The access key id is partly masked in `toString`; the secrets are never shown. */
  final case class StaticKeys(accessKeyId: String, secretKey: Secret, sessionToken: Option[Secret])
      extends AwsCredentialsConfig {
    override def toString: String = s"StaticKeys(${maskedKeyId(accessKeyId)})"
  }

  /**
   * A role assumed, on the driver, with `base` credentials (static keys or the default chain), its sessions
   * renewed before they expire. It never leaves the driver as it is: serialized into a task, it is replaced
   * by the role's current session ([[RoleSession]]), so executors never receive the long-lived keys and
   * need no credentials of their own.
   */
  final case class AssumedRole(role: RoleSpec, base: AwsCredentialsConfig) extends AwsCredentialsConfig {
    private def writeReplace(): AnyRef = new RoleSession(role, AssumedRoles.currentSession(this))
  }

  /**
   * On an executor: a session of the role as a task brought it from the driver. Every task brings the
   * driver's current session; the executor keeps the newest for each role, and its clients, one per role,
   * always sign with that. Equal for every session of one role.
   */
  final class RoleSession(val role: RoleSpec, val session: SessionCredentials) extends AwsCredentialsConfig {
    private def readResolve(): AnyRef = {
      AssumedRoles.received(role, session)
      this
    }
    override def equals(other: Any): Boolean = other match {
      case o: RoleSession => o.role == role
      case _ => false
    }
    override def hashCode(): Int = role.hashCode()
    override def toString: String = s"RoleSession(${role.arn}, ${session})"
  }

  private[config] def maskedKeyId(id: String): String =
    if (id.length <= 8) Secret.Redacted else id.take(4) + "..." + id.takeRight(4)
}

/**
 * An IAM role to assume, and how: the options roleArn, roleExternalId, roleSessionName and stsEndpoint.
 * `region` is the region of the STS endpoint (the streams' region unless stsEndpoint says otherwise).
 */
private[sparkkinesis] final case class RoleSpec(
    arn: String,
    externalId: Option[String],
    sessionName: String,
    stsEndpoint: Option[String],
    region: String,
    durationSeconds: Int) {
  override def toString: String =
    s"role $arn (session $sessionName${externalId.fold("")(_ => ", with an external id")})"
}

/** Temporary credentials of an assumed role's session; the secrets are never shown. */
private[sparkkinesis] final case class SessionCredentials(
    accessKeyId: String,
    secretKey: Secret,
    sessionToken: Secret,
    expiresAtMillis: Long) {
  override def toString: String =
    s"session ${AwsCredentialsConfig.maskedKeyId(accessKeyId)} until ${java.time.Instant.ofEpochMilli(expiresAtMillis)}"
}

/**
 * Where Kinesis is and as whom the connector calls it. Immutable and serializable.
 *
 * @param region   the AWS region, always resolved on the driver so that executors agree with it
 * @param endpoint an explicit endpoint URL, or None for the region's public endpoint
 */
private[sparkkinesis] final case class AwsConfig(
    region: String,
    endpoint: Option[String],
    credentials: AwsCredentialsConfig) {

  /** Where calls go, for messages: the endpoint and the region. */
  def describeTarget: String = endpoint.fold(s"the Kinesis endpoint of region $region")(e => s"$e (region $region)")
}

private[sparkkinesis] object AwsConfig {

  /** Reads region, endpoint and credentials from the options; the region may come from the environment. */
  def fromOptions(options: ParsedOptions, resolveDefaultRegion: () => Option[String]): AwsConfig = {
    val endpoint = options.get(KinesisOptions.Endpoint)
    val region = options
      .get(KinesisOptions.Region)
      .orElse(endpoint.flatMap(regionOfEndpoint))
      .orElse(resolveDefaultRegion())
      .getOrElse(throw KinesisErrors.noRegion(endpoint))
    val keys = credentials(options)
    AwsConfig(region, endpoint, assumedRole(options, region, keys).getOrElse(keys))
  }

  /** With roleArn: the role, assumed with `base` (the keys given, or the default chain). */
  private def assumedRole(options: ParsedOptions, region: String, base: AwsCredentialsConfig): Option[AssumedRole] = {
    val arn = options.get(KinesisOptions.RoleArn)
    val externalId = options.get(KinesisOptions.RoleExternalId)
    val stsEndpoint = options.get(KinesisOptions.StsEndpoint)
    if (arn.isEmpty) {
      if (externalId.isDefined) throw missingWith(KinesisOptions.RoleArn, KinesisOptions.RoleExternalId)
      if (stsEndpoint.isDefined) throw missingWith(KinesisOptions.RoleArn, KinesisOptions.StsEndpoint)
    }
    arn.map { roleArn =>
      val role = RoleSpec(
        roleArn,
        externalId,
        options.required(KinesisOptions.RoleSessionName),
        stsEndpoint,
        stsEndpoint.flatMap(regionOfStsEndpoint).getOrElse(region),
        (options.required(KinesisOptions.RoleSessionDuration) / 1000).toInt
      )
      AssumedRole(role, base)
    }
  }

  private def credentials(options: ParsedOptions): AwsCredentialsConfig = {
    val accessKey = options.get(KinesisOptions.AwsAccessKey)
    val secretKey = options.get(KinesisOptions.AwsSecretKey)
    val sessionToken = options.get(KinesisOptions.AwsSessionToken)
    (accessKey, secretKey) match {
      case (Some(id), Some(secret)) => AwsCredentialsConfig.StaticKeys(id, secret, sessionToken)
      case (None, None) if sessionToken.isEmpty => AwsCredentialsConfig.DefaultChain
      case (None, None) => throw missingWith(KinesisOptions.AwsAccessKey, KinesisOptions.AwsSessionToken)
      case (Some(_), None) => throw missingWith(KinesisOptions.AwsSecretKey, KinesisOptions.AwsAccessKey)
      case (None, Some(_)) => throw missingWith(KinesisOptions.AwsAccessKey, KinesisOptions.AwsSecretKey)
    }
  }

  private def missingWith(missing: OptionSpec[_], present: OptionSpec[_]) =
    KinesisErrors.optionsIncomplete(
      missing.key,
      present.key,
      if (missing == KinesisOptions.RoleArn) s"${present.key} applies to the role roleArn names."
      else "give awsAccessKey and awsSecretKey together, or neither to use the default credential chain."
    )

  private val RegionInStsHost = """(?:^|\.)sts(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.""".r

  private def regionOfStsEndpoint(endpoint: String): Option[String] =
    Option(new java.net.URI(endpoint).getHost).flatMap(h => RegionInStsHost.findFirstMatchIn(h).map(_.group(1)))

  private val RegionInHost = """(?:^|\.)kinesis(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.""".r

  /** The region named by a Kinesis endpoint host, e.g. kinesis.eu-west-1.amazonaws.com or a VPC endpoint. */
  def regionOfEndpoint(endpoint: String): Option[String] =
    Option(new java.net.URI(endpoint).getHost).flatMap(h => RegionInHost.findFirstMatchIn(h).map(_.group(1)))
}
