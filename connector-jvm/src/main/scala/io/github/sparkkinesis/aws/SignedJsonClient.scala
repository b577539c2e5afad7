// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

import java.net.URI
import java.nio.charset.StandardCharsets.UTF_8
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean

import scala.util.control.NonFatal

import software.amazon.awssdk.core.util.VersionInfo
import software.amazon.awssdk.http.{ContentStreamProvider, HttpExecuteRequest, SdkHttpFullRequest, SdkHttpMethod}
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.http.auth.aws.signer.{AwsV4FamilyHttpSigner, AwsV4HttpSigner}
import software.amazon.awssdk.http.auth.spi.signer.SignRequest
import software.amazon.awssdk.utils.IoUtils

/**
 * Calls an AWS service in its JSON protocol (awsJson1.0 or 1.1: `POST /`, the operation in `X-Amz-Target`)
 * on the pieces of the AWS SDK the connector jar already has, for the services whose SDK module it leaves
 * out (Glue's is 10 MB; CloudWatch's 2 MB, and it speaks CBOR): the SDK's Apache 5 HTTP client, through the
 * HTTP proxy the JVM's settings name for the endpoint ([[HttpProxy]]), its SigV4 signer, and the connector's
 * credentials ([[Credentials.provider]]), resolved for each call (the provider keeps them, and renews those
 * that expire, an assumed role's). Nothing is sent, and no credentials are resolved, until the first call.
 * Thread-safe; `close()` is idempotent.
 *
 * @param service     the service's signing name (`glue`, `monitoring`)
 * @param contentType the protocol's content type (`application/x-amz-json-1.1`)
 * @param userAgent   what the User-Agent header starts with, naming the connector and the use, so that
 *                    CloudTrail tells the connector's calls apart
 */
private[sparkkinesis] final class SignedJsonClient(
    url: String,
    region: String,
    credentials: AwsCredentialsConfig,
    service: String,
    contentType: String,
    userAgent: String,
    limits: SignedJsonClient.Limits) {
  import SignedJsonClient.Answer

  private val endpoint = URI.create(url)
  private val provider = Credentials.provider(credentials)
  private val signer = AwsV4HttpSigner.create()
  private val closed = new AtomicBoolean(false)
  private val agent = s"$userAgent aws-sdk-java/${VersionInfo.SDK_VERSION}"

  private val http = Apache5HttpClient
    .builder()
    .maxConnections(limits.connections)
    .connectionTimeout(limits.connecting)
    .socketTimeout(limits.silence)
    .proxyConfiguration(HttpProxy.forEndpoint(Some(url)).fold(HttpProxy.apacheDirect)(_.apache))
    .build()

  /**
   * Sends `body` to the operation `target` (`AWSGlue.GetSchemaVersion`) and gives the service's answer,
   * whatever its status.
   *
   * @throws CredentialsFailure when there are no credentials to sign with
   * @throws java.io.IOException when the service cannot be reached or does not answer in time
   */
  def post(target: String, body: String): Answer = {
    val bytes = body.getBytes(UTF_8)
    val unsigned = SdkHttpFullRequest
      .builder()
      .method(SdkHttpMethod.POST)
      .uri(endpoint)
      .encodedPath(Option(endpoint.getRawPath).filter(_.nonEmpty).getOrElse("/"))
      .putHeader("Content-Type", contentType)
      .putHeader("X-Amz-Target", target)
      .putHeader("Content-Length", bytes.length.toString)
      .putHeader("User-Agent", agent)
      .build()
    val signed = signer.sign(
      SignRequest
        .builder(provider.resolveCredentials())
        .request(unsigned)
        .payload(ContentStreamProvider.fromByteArrayUnsafe(bytes))
        .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, service)
        .putProperty(AwsV4HttpSigner.REGION_NAME, region)
        .build())
    val response = http
      .prepareRequest(
        HttpExecuteRequest
          .builder()
          .request(signed.request())
          .contentStreamProvider(ContentStreamProvider.fromByteArrayUnsafe(bytes))
          .build())
      .call()
    val text =
      if (!response.responseBody().isPresent) ""
      else {
        val in = response.responseBody().get()
        try IoUtils.toUtf8String(in)
        finally in.close()
      }
    val errorType = response.httpResponse().firstMatchingHeader("X-Amzn-ErrorType")
    Answer(response.httpResponse().statusCode(), text, if (errorType.isPresent) Some(errorType.get) else None)
  }

  def close(): Unit = if (closed.compareAndSet(false, true)) {
    try http.close()
    finally
      provider match {
        case closeable: AutoCloseable =>
          try closeable.close()
          catch { case NonFatal(_) => () }
        case _ => ()
      }
  }
}

private[sparkkinesis] object SignedJsonClient {

  /**
   * How many connections at most, how long one may take to open, and how long an answer may stay silent
   * before the call fails.
   */
  final case class Limits(connections: Int, connecting: Duration, silence: Duration)

  /** A service's answer: its HTTP status, its body, and its `X-Amzn-ErrorType` header if it has one. */
  final case class Answer(status: Int, body: String, errorType: Option[String])
}
