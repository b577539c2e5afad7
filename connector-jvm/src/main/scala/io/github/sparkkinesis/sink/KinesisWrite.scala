// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import io.github.sparkkinesis.config.KinesisSinkConfig
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.connector.write.streaming.{StreamingDataWriterFactory, StreamingWrite}
import org.slf4j.LoggerFactory

/**
 * A batch or streaming write to Kinesis. Every task sends its rows and commits once Kinesis has them all;
 * there is nothing to commit on the driver, since records cannot be held back until a batch is done:
 * delivery is at least once. A failed task is written again whole by Spark, so the rows it wrote before
 * failing are written twice.
 */
private[sparkkinesis] final class KinesisWrite(config: KinesisSinkConfig, columns: SinkColumns, totals: SinkTotals)
    extends Write
    with BatchWrite
    with StreamingWrite {
  import KinesisWrite.log

  override def description(): String = config.description

  override def supportedCustomMetrics(): Array[CustomMetric] = KinesisWriteMetrics.supported

  override def toBatch: BatchWrite = this

  override def toStreaming: StreamingWrite = this

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory =
    new KinesisDataWriterFactory(config, columns)

  override def createStreamingWriterFactory(info: PhysicalWriteInfo): StreamingDataWriterFactory =
    new KinesisDataWriterFactory(config, columns)

  override def useCommitCoordinator(): Boolean = false

  override def commit(messages: Array[WriterCommitMessage]): Unit = committed("the batch", messages)

  override def abort(messages: Array[WriterCommitMessage]): Unit = aborted("the batch")

  override def commit(epochId: Long, messages: Array[WriterCommitMessage]): Unit =
    committed(s"epoch $epochId", messages)

  override def abort(epochId: Long, messages: Array[WriterCommitMessage]): Unit = aborted(s"epoch $epochId")

  private def committed(what: String, messages: Array[WriterCommitMessage]): Unit = {
    // Read through JDK types only: see KinesisWriterCommit.
    val counts = messages.toSeq.flatMap {
      case m: java.util.function.Supplier[_] =>
        m.get() match {
          case a: Array[Long] => WriteCounts.fromArray(a)
          case _ => None
        }
      case _ => None
    }
    counts.foreach(totals.add)
    log.info(
      s"${config.description} wrote $what: ${counts.map(_.rows).sum} rows in ${counts.map(_.kinesisRecords).sum} " +
        s"Kinesis records, ${counts.map(_.bytes).sum} bytes, from ${counts.length} tasks")
  }

  private def aborted(what: String): Unit =
    log.warn(s"${config.description}: writing $what failed; the rows its tasks wrote stay in Kinesis")
}

private[sparkkinesis] object KinesisWrite {
  private val log = LoggerFactory.getLogger(classOf[KinesisWrite])
}
