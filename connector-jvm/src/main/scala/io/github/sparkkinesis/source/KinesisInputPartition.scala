package io.github.sparkkinesis.source

import io.github.sparkkinesis.client.SharedKinesisApis
import io.github.sparkkinesis.config.AwsConfig
import io.github.sparkkinesis.fetch.ShardRangeReader
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.util.SystemClock
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.slf4j.LoggerFactory

/**
 * The records of one shard in one batch: after `start`, up to and including `endSequenceNumber`. Fixed by
 * the driver; serialized to the executor that reads it.
 */
final case class KinesisInputPartition(
    shard: ShardKey,
    start: ShardPosition,
    endSequenceNumber: String,
    aws: AwsConfig,
    maxRecordsPerFetch: Int
) extends InputPartition

/** Creates the readers of [[KinesisInputPartition]]s on executors. */
object KinesisPartitionReaderFactory extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    new KinesisPartitionReader(partition.asInstanceOf[KinesisInputPartition])
}

/**
 * Reads one partition's range from Kinesis and turns each record into a row. Runs in one task on an
 * executor; not thread-safe. Logs one line per partition when it closes.
 */
final class KinesisPartitionReader(partition: KinesisInputPartition) extends PartitionReader[InternalRow] {
  private val log = LoggerFactory.getLogger(getClass)
  private val startedAt = System.nanoTime()
  private val records = new ShardRangeReader(
    SharedKinesisApis.get(partition.aws),
    partition.shard,
    partition.start,
    partition.endSequenceNumber,
    partition.maxRecordsPerFetch,
    SystemClock
  )
  private val toRow = KinesisRecordSchema.rowsOf(partition.shard)
  private var current: InternalRow = _
  private var count = 0L
  private var bytes = 0L

  override def next(): Boolean =
    records.hasNext && {
      val record = records.next()
      count += 1
      bytes += record.data.length
      current = toRow(record)
      true
    }

  override def get(): InternalRow = current

  override def close(): Unit = {
    val ms = (System.nanoTime() - startedAt) / 1000000
    log.info(
      s"Read stream=${partition.shard.stream} shard=${partition.shard.shardId} from=${partition.start} " +
        s"to=${partition.endSequenceNumber} records=$count bytes=$bytes calls=${records.getRecordsCalls} ms=$ms"
    )
  }
}
