// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import java.io.IOException
import java.time.Duration

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import io.github.sparkkinesis.aws.{CredentialsFailure, SignedJsonClient}

/**
 * The [[CloudWatchApi]] that calls CloudWatch in its JSON protocol (awsJson1.0, `POST /` with
 * `X-Amz-Target: GraniteServiceVersion20100801.PutMetricData`) without CloudWatch's own SDK module
 * ([[SignedJsonClient]]; that module would add 2 MB to the jar and speaks CBOR, smithy-rpc-v2, which no
 * emulator the tests run answers): signed for service `monitoring`; connections within 2 s, no answer waited
 * for beyond 10 s of silence. Nothing is sent, and no credentials are resolved, until the first call. Driver
 * side; one sender thread at a time; `close()` is idempotent.
 */
private[sparkkinesis] final class SdkCloudWatchApi(settings: CloudWatchSettings) extends CloudWatchApi {
  import SdkCloudWatchApi._

  private val client = new SignedJsonClient(
    settings.url,
    settings.region,
    settings.credentials,
    service = "monitoring",
    contentType = "application/x-amz-json-1.0",
    UserAgent,
    SignedJsonClient.Limits(connections = 2, Duration.ofSeconds(2), Duration.ofSeconds(10))
  )

  override def putMetricData(body: String): Unit = {
    val answer =
      try client.post("GraniteServiceVersion20100801.PutMetricData", body)
      catch {
        case f: CredentialsFailure =>
          throw new CloudWatchFailure(s"no credentials to sign with: ${f.getMessage}", keepData = true, f)
        case e: IOException =>
          throw new CloudWatchFailure(s"${settings.describeTarget} could not be reached: $e", keepData = true, e)
      }
    if (answer.status / 100 != 2) throw failure(answer.status, answer.body)
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

  override def close(): Unit = client.close()

  override def toString: String = s"SdkCloudWatchApi(${settings.describeTarget})"
}

private[sparkkinesis] object SdkCloudWatchApi {

  /** What the User-Agent header starts with, so that CloudTrail tells the listener's calls apart. */
  val UserAgent = "spark-kinesis/cloudwatch-metrics"

  /** CloudWatch's errors that refuse the data themselves: sent again, they would be refused again. */
  private val DataRefusals =
    Seq("InvalidParameterValue", "InvalidParameterCombination", "MissingParameter", "MissingRequiredParameter")
}
