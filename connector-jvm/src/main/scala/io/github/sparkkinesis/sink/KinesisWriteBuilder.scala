// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import io.github.sparkkinesis.aws.{AssumedRoles, AwsCredentialsConfig, CredentialsFailure}
import io.github.sparkkinesis.client.{ClientUse, SharedKinesisApis}
import io.github.sparkkinesis.config.KinesisSinkConfig
import io.github.sparkkinesis.health.KinesisHealth
import io.github.sparkkinesis.util.{Backoff, Clock, SystemClock}
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.internal.connector.SupportsStreamingUpdateAsAppend
import org.apache.spark.sql.types.StructType

/**
 * Plans a write of a DataFrame to Kinesis; its columns are checked here, before any row is read, and so is
 * an assumed role: its first session is what the tasks take to the executors. While STS cannot be reached
 * for it, the role is asked for again, as long as the option outageTimeout allows (and logged as an outage
 * is); a role STS refuses fails the write at once. The stream `streamName` names is looked at for keys it
 * ignores ([[KeysIgnoredCheck]]). A stream is a log, so a streaming query in update output mode (real-time
 * mode's) appends each updated row as a record, as Spark's Kafka sink does.
 */
private[sparkkinesis] final class KinesisWriteBuilder(
    config: KinesisSinkConfig,
    schema: StructType,
    totals: SinkTotals,
    clock: Clock = SystemClock)
    extends WriteBuilder
    with SupportsStreamingUpdateAsAppend {
  override def build(): Write = {
    val columns = SinkColumns.resolve(schema, config.stream)
    config.aws.credentials match {
      case assumed: AwsCredentialsConfig.AssumedRole => firstSession(assumed)
      case _ => ()
    }
    KeysIgnoredCheck.check(config, SharedKinesisApis.get(config.aws, ClientUse.Writing))
    new KinesisWrite(config, columns, totals)
  }

  private def firstSession(assumed: AwsCredentialsConfig.AssumedRole): Unit = {
    val stream = config.stream.getOrElse("stream column")
    lazy val health =
      new KinesisHealth(config.aws.describeTarget, config.description, "write to", config.outageTimeoutMs, clock)
    lazy val backoff = new Backoff(KinesisWriteBuilder.RetryMinMs, KinesisWriteBuilder.RetryMaxMs, clock)
    var session = false
    while (!session) {
      try {
        AssumedRoles.currentSession(assumed)
        session = true
      } catch {
        case f: CredentialsFailure if f.transient =>
          health.failed(stream, f)
          health.check()
          backoff.sleep()
        case f: CredentialsFailure => throw f.userFacing()
      }
    }
  }
}

private[sparkkinesis] object KinesisWriteBuilder {
  private val RetryMinMs = 500L
  private val RetryMaxMs = 10000L
}
