// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import io.github.sparkkinesis.client.{ClientUse, SharedKinesisApis}
import io.github.sparkkinesis.config.KinesisSinkConfig
import io.github.sparkkinesis.util.SystemClock
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory

/** Creates the writers of a batch's or an epoch's tasks on the executors. */
private[sparkkinesis] final class KinesisDataWriterFactory(config: KinesisSinkConfig, columns: SinkColumns)
    extends DataWriterFactory
    with StreamingDataWriterFactory {

  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] =
    writer(s"partition $partitionId (task $taskId)")

  override def createWriter(partitionId: Int, taskId: Long, epochId: Long): DataWriter[InternalRow] =
    writer(s"partition $partitionId of epoch $epochId (task $taskId)")

  private def writer(task: String) =
    new KinesisDataWriter(config, columns, SharedKinesisApis.get(config.aws, ClientUse.Writing), SystemClock, task)
}
