package io.github.sparkkinesis.client

import java.net.URI
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import io.github.sparkkinesis.config.{AwsConfig, AwsCredentialsConfig}
import software.amazon.awssdk.auth.credentials._
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.KinesisClient

/**
 * Builds AWS clients. HTTP clients are built here explicitly, never found by the SDK's service loading, so
 * that the shaded connector jar works whatever else is on the classpath.
 */
object KinesisClientFactory {

  /** A new client; the caller closes it. No network I/O happens until the first call. */
  def create(aws: AwsConfig): KinesisApi = createAdmin(aws)

  /** A new client that can also create, delete and reshard streams; the caller closes it. */
  def createAdmin(aws: AwsConfig): KinesisAdminApi = {
    val http = Apache5HttpClient
      .builder()
      .maxConnections(128)
      .connectionTimeout(Duration.ofSeconds(5))
      .socketTimeout(Duration.ofSeconds(30))
      .build()
    val builder = KinesisClient
      .builder()
      .httpClient(http)
      .region(Region.of(aws.region))
      .credentialsProvider(credentialsProvider(aws.credentials))
      .overrideConfiguration(ClientOverrideConfiguration.builder().apiCallTimeout(Duration.ofMinutes(2)).build())
    aws.endpoint.foreach(e => builder.endpointOverride(URI.create(e)))
    new SdkKinesisApi(builder.build(), http, aws.describeTarget)
  }

  def credentialsProvider(credentials: AwsCredentialsConfig): AwsCredentialsProvider = credentials match {
    case AwsCredentialsConfig.DefaultChain =>
      DefaultCredentialsProvider.builder().build()
    case AwsCredentialsConfig.StaticKeys(id, secret, None) =>
      StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret.reveal))
    case AwsCredentialsConfig.StaticKeys(id, secret, Some(token)) =>
      StaticCredentialsProvider.create(AwsSessionCredentials.create(id, secret.reveal, token.reveal))
  }

  /** The region of the SDK's default chain (environment, system property, profile, instance), if any. */
  def defaultRegion(): Option[String] =
    try Option(DefaultAwsRegionProviderChain.builder().build().getRegion).map(_.id())
    catch { case NonFatal(_) => None }
}

/**
 * One [[KinesisApi]] per distinct [[AwsConfig]] per JVM, shared by the tasks of an executor so that each
 * task does not pay for a new connection pool. Thread-safe. The clients live as long as the JVM.
 */
object SharedKinesisApis {
  private val apis = new ConcurrentHashMap[AwsConfig, KinesisApi]()

  def get(aws: AwsConfig): KinesisApi = apis.computeIfAbsent(aws, a => KinesisClientFactory.create(a))
}
