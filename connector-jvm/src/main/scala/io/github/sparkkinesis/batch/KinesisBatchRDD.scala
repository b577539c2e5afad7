// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.batch

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.client.{ClientUse, SharedKinesisApis}
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.reading.{RecordCursor, ShardRangeReader}
import io.github.sparkkinesis.source.KinesisRecordSchema
import io.github.sparkkinesis.util.SystemClock
import org.apache.spark.{InterruptibleIterator, Partition, SparkContext, TaskContext, TaskKilledException}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.slf4j.LoggerFactory

/** One task of a batch read: its range, fixed by the driver. */
private[sparkkinesis] final case class KinesisBatchPartition(index: Int, range: BatchRange) extends Partition

/**
 * The rows of a batch read: a partition per range the driver planned ([[BatchPlanner]]), each read from
 * Kinesis by its task with [[ShardRangeReader]], every record made a row as it comes (`UnsafeRow`s that the
 * task reuses, as a scan's rows are). A task Spark kills stops within a call. Logs one INFO line per
 * partition.
 */
private[sparkkinesis] final class KinesisBatchRDD(
    sc: SparkContext,
    ranges: Seq[BatchRange],
    aws: AwsConfig,
    reading: ReadConfig)
    extends RDD[InternalRow](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    ranges.zipWithIndex.map { case (range, i) => KinesisBatchPartition(i, range): Partition }.toArray

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] = {
    val range = split.asInstanceOf[KinesisBatchPartition].range
    val startedAt = System.nanoTime()
    val api = SharedKinesisApis.get(aws, ClientUse.Reading)
    val halt = () => if (context.isInterrupted()) throw new TaskKilledException("the task was killed")
    val records =
      RecordCursor.of(new ShardRangeReader(api, range.shard, range.from, range.end, reading, SystemClock, halt))
    val rows = new KinesisRecordSchema.RowWriter(range.shard)
    var read = 0L
    var bytes = 0L
    context.addTaskCompletionListener[Unit] { _ =>
      val ms = (System.nanoTime() - startedAt) / 1000000
      KinesisBatchRDD.log.info(s"Read $range: records=$read bytes=$bytes ms=$ms")
    }
    val iterator = new Iterator[InternalRow] {
      private var looked = false
      private var more = false

      override def hasNext: Boolean = {
        if (!looked) {
          more = records.next()
          looked = true
        }
        more
      }

      override def next(): InternalRow = {
        if (!hasNext) throw new NoSuchElementException(s"$range has no records left")
        looked = false
        read += 1
        bytes += records.dataLength
        rows.rowOf(records)
      }
    }
    new InterruptibleIterator(context, iterator)
  }
}

private[sparkkinesis] object KinesisBatchRDD {
  private val log = LoggerFactory.getLogger(classOf[KinesisBatchRDD])
}
