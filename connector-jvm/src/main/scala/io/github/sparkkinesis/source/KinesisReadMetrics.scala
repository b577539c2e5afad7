// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.util.SummedMetric
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}

/**
 * What the Spark UI shows for each batch's Kinesis scan, besides Spark's own row counts: how many records
 * came from prefetched blocks, and how many had to be read from Kinesis again because their block was gone
 * (the query restarted, an executor was lost, or a block was removed). Summed over the batch's tasks.
 */
private[sparkkinesis] object KinesisReadMetrics {
  val FromBlocks = "recordsFromPrefetchedBlocks"
  val FromKinesis = "recordsReadAgainFromKinesis"

  def supported: Array[CustomMetric] = Array(new RecordsFromPrefetchedBlocks, new RecordsReadAgainFromKinesis)

  def taskValues(fromBlocks: Long, fromKinesis: Long): Array[CustomTaskMetric] =
    Array(TaskValue(FromBlocks, fromBlocks), TaskValue(FromKinesis, fromKinesis))

  private final case class TaskValue(name: String, value: Long) extends CustomTaskMetric
}

private[sparkkinesis] final class RecordsFromPrefetchedBlocks
    extends SummedMetric(KinesisReadMetrics.FromBlocks, "records read from prefetched blocks")

private[sparkkinesis] final class RecordsReadAgainFromKinesis
    extends SummedMetric(KinesisReadMetrics.FromKinesis, "records read again from Kinesis (prefetched block gone)")
