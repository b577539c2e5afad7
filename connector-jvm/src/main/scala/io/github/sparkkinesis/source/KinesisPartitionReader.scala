// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.client.{ExecutorApis, RateLimitErrors}
import io.github.sparkkinesis.prefetch.{PrefetchRuntime, Segment, SegmentReader}
import io.github.sparkkinesis.reading.RecordCursor
import io.github.sparkkinesis.util.{RecordOrigins, SystemClock}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.util.LongAccumulator
import org.slf4j.LoggerFactory

/**
 * Creates the readers of [[KinesisInputPartition]]s on executors; each adds AWS' throttling answers to its
 * calls (when it reads a stretch from Kinesis again) to the query's `rateLimitErrors`.
 */
private[sparkkinesis] final class KinesisPartitionReaderFactory(
    runtime: PrefetchRuntime,
    apis: ExecutorApis,
    rateLimitErrors: LongAccumulator)
    extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    new KinesisPartitionReader(partition.asInstanceOf[KinesisInputPartition], runtime, apis, rateLimitErrors)
}

/**
 * Reads one partition's stretches in order and turns each record into a row. Runs in one task on an
 * executor; not thread-safe. Tells the functions of its task where a record was read ([[RecordOrigins]]). Logs one line per partition when it closes, and adds AWS' throttling answers
 * to its calls to `rateLimitErrors` then.
 */
private[sparkkinesis] final class KinesisPartitionReader(
    partition: KinesisInputPartition,
    runtime: PrefetchRuntime,
    apis: ExecutorApis,
    rateLimitErrors: LongAccumulator)
    extends PartitionReader[InternalRow]
    with RecordOrigins.Reader {
  private val log = LoggerFactory.getLogger(getClass)
  private val startedAt = System.nanoTime()
  private val remaining = partition.segments.iterator
  private var records = Option.empty[RecordCursor]
  private var rows: KinesisRecordSchema.RowWriter = _
  private var current: InternalRow = _
  private var readingBlock = false
  private var fromBlocks = 0L
  private var fromKinesis = 0L
  private var bytes = 0L
  private var blocksGone = 0
  private val throttled = new RateLimitErrors
  RecordOrigins.register(this)

  override def next(): Boolean = {
    var found = records.exists(_.next())
    while (!found && remaining.hasNext) {
      open(remaining.next())
      found = records.exists(_.next())
    }
    found && {
      val record = records.get
      if (readingBlock) fromBlocks += 1 else fromKinesis += 1
      bytes += record.dataLength
      current = rows.rowOf(record)
      true
    }
  }

  private def open(segment: Segment): Unit = {
    val (source, read) = SegmentReader.read(
      segment,
      runtime.store,
      apis.apiFor(partition.aws).counting(throttled),
      partition.reading,
      SystemClock
    )
    readingBlock = source == SegmentReader.FromBlock
    if (!readingBlock && segment.block.isDefined) blocksGone += 1
    rows = new KinesisRecordSchema.RowWriter(segment.shard)
    records = Some(read)
  }

  override def get(): InternalRow = current

  override def originOf(data: Array[Byte]): Option[String] = KinesisRecordSchema.originOf(current, data)

  override def currentMetricsValues(): Array[CustomTaskMetric] = KinesisReadMetrics.taskValues(fromBlocks, fromKinesis)

  override def close(): Unit = {
    RecordOrigins.unregister(this)
    rateLimitErrors.add(throttled.take())
    val ms = (System.nanoTime() - startedAt) / 1000000
    val shards = partition.segments.map(_.shard).distinct
    log.info(
      s"Read ${partition.segments.size} stretches of ${shards.mkString(",")}: records=${fromBlocks + fromKinesis} " +
        s"bytes=$bytes fromBlocks=$fromBlocks fromKinesis=$fromKinesis blocksGone=$blocksGone ms=$ms"
    )
  }
}
