// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.batch

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.client.{ClientUse, SharedKinesisApis}
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.reading.{RecordCursor, ShardRange, ShardRangesReader}
import io.github.sparkkinesis.source.KinesisRecordSchema
import io.github.sparkkinesis.util.{RecordOrigins, SystemClock}
import org.apache.spark.{InterruptibleIterator, Partition, SparkContext, TaskContext, TaskKilledException}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.slf4j.LoggerFactory

/** One task of a batch read: the ranges it reads, fixed by the driver. */
private[sparkkinesis] final case class KinesisBatchPartition(index: Int, ranges: Seq[ShardRange]) extends Partition

/**
 * The rows of a batch read: a partition per group of ranges the driver planned ([[BatchPlanner]],
 * [[KinesisRelation]]), whose task reads its ranges together on one thread ([[ShardRangesReader]]: each
 * call to the shard due first, so that a task over many shards spends the pauses Kinesis' limits impose on
 * one shard calling the others), every record made a row as its call returns it (`UnsafeRow`s that the
 * task reuses, as a scan's rows are). Each shard's rows come in order, a shard's after its parents' when
 * the task reads both. A task Spark kills stops within a call. Logs one INFO line per partition.
 */
private[sparkkinesis] final class KinesisBatchRDD(
    sc: SparkContext,
    tasks: Seq[Seq[ShardRange]],
    aws: AwsConfig,
    reading: ReadConfig)
    extends RDD[InternalRow](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    tasks.zipWithIndex.map { case (ranges, i) => KinesisBatchPartition(i, ranges): Partition }.toArray

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] = {
    val ranges = split.asInstanceOf[KinesisBatchPartition].ranges.toIndexedSeq
    val startedAt = System.nanoTime()
    val halt = () => if (context.isInterrupted()) throw new TaskKilledException("the task was killed")
    val reader =
      new ShardRangesReader(SharedKinesisApis.get(aws, ClientUse.Reading), ranges, reading, SystemClock, halt)
    val writers = ranges.map(r => new KinesisRecordSchema.RowWriter(r.shard))
    var read = 0L
    var bytes = 0L
    context.addTaskCompletionListener[Unit] { _ =>
      val ms = (System.nanoTime() - startedAt) / 1000000
      KinesisBatchRDD.log.info(s"Read ${ranges.mkString("; ")}: records=$read bytes=$bytes ms=$ms")
    }
    val iterator = new Iterator[InternalRow] with RecordOrigins.Reader {
      private var rows: KinesisRecordSchema.RowWriter = _
      private var current: InternalRow = _
      private var records: RecordCursor = RecordCursor.of(Iterator.empty)
      private var looked = false
      private var more = false

      override def hasNext: Boolean = {
        if (!looked) {
          more = records.next() || nextCall()
          looked = true
        }
        more
      }

      /** Moves to the first record of the next call that read any; false once every range is read. */
      private def nextCall(): Boolean =
        reader.next().exists { case (i, fetched) =>
          rows = writers(i)
          records = RecordCursor.of(fetched.iterator)
          records.next()
        }

      override def next(): InternalRow = {
        if (!hasNext) throw new NoSuchElementException(s"${ranges.mkString("; ")}: no records left")
        looked = false
        read += 1
        bytes += records.dataLength
        current = rows.rowOf(records)
        current
      }

      override def originOf(data: Array[Byte]): Option[String] = KinesisRecordSchema.originOf(current, data)
    }
    RecordOrigins.register(iterator)
    new InterruptibleIterator(context, iterator)
  }
}

private[sparkkinesis] object KinesisBatchRDD {
  private val log = LoggerFactory.getLogger(classOf[KinesisBatchRDD])
}
