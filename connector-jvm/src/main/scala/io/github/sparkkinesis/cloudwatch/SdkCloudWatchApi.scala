// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import java.io.IOException
import java.net.URI
import java.nio.charset.StandardCharsets.UTF_8
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import io.github.sparkkinesis.aws.{Credentials, CredentialsFailure, HttpProxy}
import software.amazon.awssdk.core.util.VersionInfo
import software.amazon.awssdk.http.{ContentStreamProvider, HttpExecuteRequest, SdkHttpFullRequest, SdkHttpMethod}
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.http.auth.aws.signer.{AwsV4FamilyHttpSigner, AwsV4HttpSigner}
import software.amazon.awssdk.http.auth.spi.signer.SignRequest
import software.amazon.awssdk.utils.IoUtils

/**
 * The [[CloudWatchApi]] that calls CloudWatch in its JSON protocol (awsJson1.0, `POST /` with
 * `X-Amz-Target: GraniteServiceVersion20100801.PutMetricData`), on the pieces of the AWS SDK the connector
 * jar already has, as the Glue registry's calls are: the SDK's Apache 5 HTTP client (through the proxy the
 * JVM names for the endpoint; connections within 2 s, no answer waited for beyond 10 s of silence), its SigV4
 * signer for service `monitoring`, and the connector's credentials ([[Credentials.provider]]). The SDK's own
 * CloudWatch module would add 2 MB to the jar and speaks CBOR (smithy-rpc-v2), which no emulator the tests
 * run answers. Nothing is sent, and no credentials are resolved, until the first call. Driver side; one
 * sender thread at a time; `close()` is idempotent.
 */
private[sparkkinesis] final class SdkCloudWatchApi(settings: CloudWatchSettings) extends CloudWatchApi {
  import SdkCloudWatchApi._

  private val endpoint = URI.create(settings.url)
  private val provider = Credentials.provider(settings.credentials)
  private val signer = AwsV4HttpSigner.create()
  private val closed = new AtomicBoolean(false)
  private val agent = s"$UserAgent aws-sdk-java/${VersionInfo.SDK_VERSION}"

  private val http = Apache5HttpClient
    .builder()
    .maxConnections(2)
    .connectionTimeout(Duration.ofSeconds(2))
    .socketTimeout(Duration.ofSeconds(10))
    .proxyConfiguration(HttpProxy.forEndpoint(Some(settings.url)).fold(HttpProxy.apacheDirect)(_.apache))
    .build()

  override def putMetricData(body: String): Unit = {
    val bytes = body.getBytes(UTF_8)
    val unsigned = SdkHttpFullRequest
      .builder()
      .method(SdkHttpMethod.POST)
      .uri(endpoint)
      .encodedPath(Option(endpoint.getRawPath).filter(_.nonEmpty).getOrElse("/"))
      .putHeader("Content-Type", "application/x-amz-json-1.0")
      .putHeader("X-Amz-Target", "GraniteServiceVersion20100801.PutMetricData")
      .putHeader("Content-Length", bytes.length.toString)
      .putHeader("User-Agent", agent)
      .build()
    val identity =
      try provider.resolveCredentials()
      catch {
        case f: CredentialsFailure =>
          throw new CloudWatchFailure(s"no credentials to sign with: ${f.getMessage}", keepData = true, f)
      }
    val signed = signer.sign(
      SignRequest
        .builder(identity)
        .request(unsigned)
        .payload(ContentStreamProvider.fromByteArrayUnsafe(bytes))
        .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "monitoring")
        .putProperty(AwsV4HttpSigner.REGION_NAME, settings.region)
        .build())
    val response =
      try
        http
          .prepareRequest(
            HttpExecuteRequest
              .builder()
              .request(signed.request())
              .contentStreamProvider(ContentStreamProvider.fromByteArrayUnsafe(bytes))
              .build())
          .call()
      catch {
        case e: IOException =>
          throw new CloudWatchFailure(s"${settings.describeTarget} could not be reached: $e", keepData = true, e)
      }
    val status = response.httpResponse().statusCode()
    val text =
      if (!response.responseBody().isPresent) ""
      else {
        val in = response.responseBody().get()
        try IoUtils.toUtf8String(in)
        finally in.close()
      }
    if (status / 100 != 2) throw failure(status, text)
  }

  /** CloudWatch's refusal: its error code and message, and whether the data may be sent another time. */
  private def failure(status: Int, text: String): CloudWatchFailure = {
    val (code, message) =
      try {
        val answer = new ObjectMapper().readTree(text)
        val kind = Option(answer.get("__type")).map(_.asText).getOrElse("")
        val said = Option(answer.get("message")).orElse(Option(answer.get("Message"))).map(_.asText).getOrElse("")
        (kind.substring(kind.lastIndexOf('#') + 1), said)
      } catch { case NonFatal(_) => ("", text.take(300)) }
    val dataRefused = status == 400 && DataRefusals.exists(code.startsWith)
    new CloudWatchFailure(
      s"${settings.describeTarget} answered $status${if (code.isEmpty) "" else s" $code"}: $message",
      keepData = !dataRefused)
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

  override def toString: String = s"SdkCloudWatchApi(${settings.describeTarget})"
}

private[sparkkinesis] object SdkCloudWatchApi {

  /** What the User-Agent header starts with, so that CloudTrail tells the listener's calls apart. */
  val UserAgent = "spark-kinesis/cloudwatch-metrics"

  /** CloudWatch's errors that refuse the data themselves: sent again, they would be refused again. */
  private val DataRefusals =
    Seq("InvalidParameterValue", "InvalidParameterCombination", "MissingParameter", "MissingRequiredParameter")
}
