// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.io.ByteArrayOutputStream
import java.net.URI
import java.nio.charset.StandardCharsets.UTF_8
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean

import scala.util.control.NonFatal

import io.github.sparkkinesis.aws.{AwsCredentialsConfig, Credentials, HttpProxy}
import software.amazon.awssdk.core.util.VersionInfo
import software.amazon.awssdk.http.{ContentStreamProvider, HttpExecuteRequest, SdkHttpFullRequest, SdkHttpMethod}
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.http.auth.aws.signer.{AwsV4FamilyHttpSigner, AwsV4HttpSigner}
import software.amazon.awssdk.http.auth.spi.signer.SignRequest

/**
 * The [[GlueTransport]] that calls Glue, on the pieces of the AWS SDK the connector jar has without Glue's
 * own module (10 MB): the SDK's Apache 5 HTTP client, built as the Kinesis clients' are (through the HTTP
 * proxy the JVM's settings name for the endpoint, [[HttpProxy]]; connections within 5 s, no answer waited
 * for beyond 30 s of silence), its SigV4 signer for service `glue`, and the connector's credentials
 * ([[Credentials.provider]]). Nothing is sent, and no credentials are resolved, until the first call.
 * Thread-safe; `close()` is idempotent.
 *
 * @param userAgent what the User-Agent header starts with, naming the connector and the use, so that
 *                  CloudTrail tells the connector's calls apart
 */
private[sparkkinesis] final class SdkGlueTransport(config: GlueRegistryConfig, userAgent: String)
    extends GlueTransport {

  private val endpoint = URI.create(config.url)
  private val provider = Credentials.provider(config.credentials)
  private val signer = AwsV4HttpSigner.create()
  private val closed = new AtomicBoolean(false)
  private val agent = s"$userAgent aws-sdk-java/${VersionInfo.SDK_VERSION}"

  private val http = Apache5HttpClient
    .builder()
    .maxConnections(16)
    .connectionTimeout(Duration.ofSeconds(5))
    .socketTimeout(Duration.ofSeconds(30))
    .proxyConfiguration(HttpProxy.forEndpoint(Some(config.url)).fold(HttpProxy.apacheDirect)(_.apache))
    .build()

  override def target: String = config.describeTarget

  override def credentials: AwsCredentialsConfig = config.credentials

  override def send(operation: String, body: String): GlueResponse = {
    val bytes = body.getBytes(UTF_8)
    val unsigned = SdkHttpFullRequest
      .builder()
      .method(SdkHttpMethod.POST)
      .uri(endpoint)
      .encodedPath(Option(endpoint.getRawPath).filter(_.nonEmpty).getOrElse("/"))
      .putHeader("Content-Type", "application/x-amz-json-1.1")
      .putHeader("X-Amz-Target", s"AWSGlue.$operation")
      .putHeader("Content-Length", bytes.length.toString)
      .putHeader("User-Agent", agent)
      .build()
    // Resolved for each call: the provider keeps them, and renews those that expire (an assumed role's).
    val identity = provider.resolveCredentials()
    val signed = signer.sign(
      SignRequest
        .builder(identity)
        .request(unsigned)
        .payload(ContentStreamProvider.fromByteArrayUnsafe(bytes))
        .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "glue")
        .putProperty(AwsV4HttpSigner.REGION_NAME, config.region)
        .build())
    val response = http
      .prepareRequest(
        HttpExecuteRequest
          .builder()
          .request(signed.request())
          .contentStreamProvider(ContentStreamProvider.fromByteArrayUnsafe(bytes))
          .build())
      .call()
    val text = if (response.responseBody().isPresent) {
      val in = response.responseBody().get()
      try {
        val out = new ByteArrayOutputStream()
        val buffer = new Array[Byte](8192)
        var n = in.read(buffer)
        while (n >= 0) {
          out.write(buffer, 0, n)
          n = in.read(buffer)
        }
        new String(out.toByteArray, UTF_8)
      } finally in.close()
    } else ""
    val answer = response.httpResponse()
    val errorType = answer.firstMatchingHeader("X-Amzn-ErrorType")
    GlueResponse(answer.statusCode(), text, if (errorType.isPresent) Some(errorType.get()) else None)
  }

  override def close(): Unit = if (closed.compareAndSet(false, true)) {
    try http.close()
    finally
      provider match {
        case closeable: AutoCloseable =>
          try closeable.close()
          catch { case NonFatal(_) => () }
        case _ => ()
      }
  }

  override def toString: String = s"SdkGlueTransport(${config.describeTarget})"
}
