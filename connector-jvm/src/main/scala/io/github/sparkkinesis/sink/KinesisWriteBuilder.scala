// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import scala.util.control.NonFatal

import io.github.sparkkinesis.aws.AssumedRoles
import io.github.sparkkinesis.aws.AwsCredentialsConfig
import io.github.sparkkinesis.config.KinesisSinkConfig
import io.github.sparkkinesis.errors.KinesisErrors
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.internal.connector.SupportsStreamingUpdateAsAppend
import org.apache.spark.sql.types.StructType

/**
 * Plans a write of a DataFrame to Kinesis; its columns are checked here, before any row is read, and so is
 * an assumed role: its first session is what the tasks take to the executors. A stream is a log, so a
 * streaming query in update output mode (real-time mode's) appends each updated row as a record, as Spark's
 * Kafka sink does.
 */
private[sparkkinesis] final class KinesisWriteBuilder(config: KinesisSinkConfig, schema: StructType, totals: SinkTotals)
    extends WriteBuilder
    with SupportsStreamingUpdateAsAppend {
  override def build(): Write = {
    val columns = SinkColumns.resolve(schema, config.stream)
    config.aws.credentials match {
      case assumed: AwsCredentialsConfig.AssumedRole =>
        try AssumedRoles.currentSession(assumed)
        catch { case NonFatal(e) => throw KinesisErrors.credentialsUnavailable(config.aws.describeTarget, e) }
      case _ => ()
    }
    new KinesisWrite(config, columns, totals)
  }
}
