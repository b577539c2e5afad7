// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.net.URI
import java.time.Duration

import scala.util.control.NonFatal

import io.github.sparkkinesis.aws.{AwsConfig, Credentials, HttpProxy}
import software.amazon.awssdk.core.client.config.{ClientOverrideConfiguration, SdkAdvancedClientOption}
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.http.nio.netty.{Http2Configuration, NettyNioAsyncHttpClient}
import software.amazon.awssdk.http.Protocol
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.{KinesisAsyncClient, KinesisClient}

/**
 * Builds AWS clients. HTTP clients are built here explicitly, never found by the SDK's service loading, so
 * that the shaded connector jar works whatever else is on the classpath; each goes through the HTTP proxy the
 * JVM's settings name for its endpoint ([[HttpProxy]]), if any. The synchronous clients count AWS'
 * throttling answers, attempt by attempt, for the callers that keep a count ([[RateLimitCounting]]).
 *
 * Who backs off when Kinesis throttles: for GetRecords, the connector alone. Its calls go through a client
 * of their own ([[GetRecordsRetries]]) whose SDK retries network failures and 5xx answers but never a
 * throttling answer, which reaches the reader at once: the reader's pacing (a rest, fewer records a call)
 * is the one backoff, and the calls it makes are the calls Kinesis sees. The other calls (ListShards,
 * GetShardIterator, DescribeStreamSummary, the consumer calls, PutRecords) keep the SDK's default retries,
 * throttling included: they are few, made once a batch or a shard opening, by callers without a pace of
 * their own, and a retry a few hundred milliseconds later is what they need.
 */
private[sparkkinesis] object KinesisClientFactory {

  /** A new client for `use`; the caller closes it. No network I/O happens until the first call. */
  def create(aws: AwsConfig, use: ClientUse): KinesisApi = wrapping(use, sdk(aws, use.userAgent))

  @volatile private var wrapping: (ClientUse, KinesisApi) => KinesisApi = (_, api) => api

  /** Tests: each client [[create]] makes from now on in this JVM is `wrap` of it, e.g. to record its calls. */
  private[sparkkinesis] def wrapNewClients(wrap: (ClientUse, KinesisApi) => KinesisApi): Unit = wrapping = wrap

  /** The client [[create]] returns, as its class, with the user agent's suffix given. */
  private[sparkkinesis] def sdk(aws: AwsConfig, userAgent: String): SdkKinesisApi =
    sdk(aws, userAgent, HttpProxy.forEndpoint(aws.endpoint))

  /** As the other, through `through` rather than the proxy this JVM's settings name for the endpoint. */
  private[sparkkinesis] def sdk(aws: AwsConfig, userAgent: String, through: Option[HttpProxy]): SdkKinesisApi = {
    val http = Apache5HttpClient
      .builder()
      .maxConnections(128)
      .connectionTimeout(Duration.ofSeconds(5))
      .socketTimeout(Duration.ofSeconds(30))
      .proxyConfiguration(through.fold(HttpProxy.apacheDirect)(_.apache))
      .build()
    // Both share the HTTP client (its connections), which the SdkKinesisApi closes after them.
    def client(configure: ClientOverrideConfiguration.Builder => ClientOverrideConfiguration.Builder) = {
      val builder = KinesisClient
        .builder()
        .httpClient(http)
        .region(Region.of(aws.region))
        .credentialsProvider(Credentials.provider(aws.credentials))
        .overrideConfiguration(
          configure(
            overrides(userAgent).addExecutionInterceptor(RateLimitCounting).apiCallTimeout(Duration.ofMinutes(2))
          ).build())
      aws.endpoint.foreach(e => builder.endpointOverride(URI.create(e)))
      builder.build()
    }
    new SdkKinesisApi(
      client(identity),
      client(_.retryStrategy(GetRecordsRetries.strategy).addExecutionInterceptor(GetRecordsParsing)),
      http,
      () => createAsync(aws, userAgent, through),
      aws.describeTarget,
      aws.streamArns
    )
  }

  /** What both clients set: the user agent's suffix, which names what they are for. */
  private def overrides(userAgent: String): ClientOverrideConfiguration.Builder =
    ClientOverrideConfiguration.builder().putAdvancedOption(SdkAdvancedClientOption.USER_AGENT_SUFFIX, userAgent)

  /**
   * The client of SubscribeToShard: HTTP/2 over Netty, one connection carrying many subscriptions. Without
   * an API call timeout, as a subscription is a call that lasts minutes; a connection that goes quiet is
   * noticed by HTTP/2 pings.
   */
  private def createAsync(aws: AwsConfig, userAgent: String, proxy: Option[HttpProxy]): KinesisAsyncClient = {
    // Given as a builder, so the SDK client owns the HTTP client and closes it with itself.
    val http = NettyNioAsyncHttpClient
      .builder()
      .protocol(Protocol.HTTP2)
      .maxConcurrency(1000)
      .connectionTimeout(Duration.ofSeconds(5))
      .readTimeout(Duration.ofSeconds(60))
      .proxyConfiguration(proxy.fold(HttpProxy.nettyDirect)(_.netty))
      .http2Configuration(
        Http2Configuration.builder().initialWindowSize(512 * 1024).healthCheckPingPeriod(Duration.ofSeconds(10)).build()
      )
    val builder = KinesisAsyncClient
      .builder()
      .httpClientBuilder(http)
      .region(Region.of(aws.region))
      .credentialsProvider(Credentials.provider(aws.credentials))
      .overrideConfiguration(overrides(userAgent).build())
    aws.endpoint.foreach(e => builder.endpointOverride(URI.create(e)))
    builder.build()
  }

  /** The region of the SDK's default chain (environment, system property, profile, instance), if any. */
  def defaultRegion(): Option[String] = chainRegion

  /**
   * Asked once per JVM: off EC2 the chain's last step waits for the instance metadata service to fail, and
   * a `.load()` checks the options more than once.
   */
  private lazy val chainRegion: Option[String] =
    try Option(DefaultAwsRegionProviderChain.builder().build().getRegion).map(_.id())
    catch { case NonFatal(_) => None }
}
