// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

import java.net.URI
import java.time.{Duration, Instant}
import java.util.concurrent.ConcurrentHashMap

import io.github.sparkkinesis.aws.AwsCredentialsConfig.AssumedRole
import software.amazon.awssdk.auth.credentials.{AwsCredentialsProvider, AwsSessionCredentials}
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleCredentialsProvider
import software.amazon.awssdk.services.sts.model.AssumeRoleRequest
import software.amazon.awssdk.services.sts.StsClient

/**
 * Assumed roles' credentials, on both sides of the wire.
 *
 * On the driver, one STS provider per role (and base credentials) per JVM assumes the role and assumes it
 * again, in the background, once half of a session's lifetime has passed; tasks are serialized with its
 * current session ([[currentSession]]), so a task starts with about half a session or more ahead of it.
 * The providers live as long as the JVM (one per role a driver ever used).
 *
 * On executors, the sessions tasks bring are kept, the newest per role ([[received]]), and the clients
 * sign with it ([[receivedProvider]]): as long as tasks keep coming (prefetch tasks every
 * maxFetchDuration, a batch's tasks each trigger), an executor's credentials are renewed before they
 * expire. Thread-safe.
 */
private[sparkkinesis] object AssumedRoles {

  private val providers = new ConcurrentHashMap[AssumedRole, StsAssumeRoleCredentialsProvider]()
  private val sessions = new ConcurrentHashMap[RoleSpec, SessionCredentials]()

  /** Driver: credentials of the role, renewed in the background. No STS call until the first use. */
  def provider(assumed: AssumedRole): AwsCredentialsProvider = {
    val shared = providers.computeIfAbsent(assumed, stsProvider)
    // Clients close their credentials providers; this one is shared, so clients get a view of it.
    () => shared.resolveCredentials()
  }

  /**
   * Driver: the role's current session, as tasks carry it to executors. Throws a [[CredentialsFailure]] when
   * there is none: STS could not be reached or refused, or the credentials the role is assumed with failed.
   */
  def currentSession(assumed: AssumedRole): SessionCredentials =
    Credentials.provider(assumed).resolveCredentials() match {
      case s: AwsSessionCredentials =>
        SessionCredentials(
          s.accessKeyId(),
          new Secret(s.secretAccessKey()),
          new Secret(s.sessionToken()),
          s.expirationTime().map[Long](_.toEpochMilli).orElse(Long.MaxValue))
      case _ =>
        throw new IllegalStateException(s"STS returned credentials without a session token for ${assumed.role}")
    }

  /** Executor: a session a task brought; an older one than the executor has is ignored. */
  def received(role: RoleSpec, session: SessionCredentials): Unit =
    sessions.merge(
      role,
      session,
      (held, brought) => if (brought.expiresAtMillis > held.expiresAtMillis) brought else held)

  /** Executor: the newest session of the role that tasks brought, or None before any. */
  def newestReceived(role: RoleSpec): Option[SessionCredentials] = Option(sessions.get(role))

  /** Executor: credentials from the newest session of the role that tasks brought. */
  def receivedProvider(role: RoleSpec): AwsCredentialsProvider = () => {
    val session = newestReceived(role).getOrElse(
      throw new IllegalStateException(s"No session of $role has reached this executor from the driver"))
    AwsSessionCredentials
      .builder()
      .accessKeyId(session.accessKeyId)
      .secretAccessKey(session.secretKey.reveal)
      .sessionToken(session.sessionToken.reveal)
      .expirationTime(Instant.ofEpochMilli(session.expiresAtMillis))
      .build()
  }

  private def stsProvider(assumed: AssumedRole): StsAssumeRoleCredentialsProvider = {
    val role = assumed.role
    val sts = StsClient
      .builder()
      .httpClient(
        Apache5HttpClient
          .builder()
          .connectionTimeout(Duration.ofSeconds(5))
          .proxyConfiguration(HttpProxy.forEndpoint(role.stsEndpoint).fold(HttpProxy.apacheDirect)(_.apache))
          .build())
      .region(Region.of(role.region))
      .credentialsProvider(Credentials.provider(assumed.base))
    role.stsEndpoint.foreach(e => sts.endpointOverride(URI.create(e)))
    val request = AssumeRoleRequest
      .builder()
      .roleArn(role.arn)
      .roleSessionName(role.sessionName)
      .durationSeconds(role.durationSeconds)
    role.externalId.foreach(request.externalId)
    val lifetime = Duration.ofSeconds(role.durationSeconds.toLong)
    StsAssumeRoleCredentialsProvider
      .builder()
      .stsClient(sts.build())
      .refreshRequest(request.build())
      .prefetchTime(lifetime.dividedBy(2))
      .staleTime(Duration.ofSeconds(math.max(1L, math.min(60L, role.durationSeconds / 4L))))
      .asyncCredentialUpdateEnabled(true)
      .build()
  }
}
