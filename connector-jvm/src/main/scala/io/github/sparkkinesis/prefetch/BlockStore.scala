// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.ShardKey
import org.apache.spark.sparkkinesis.SparkBlocks

/**
 * Where prefetched records are kept between the prefetch task that read them and the batch that reads them.
 * Thread-safe. [[SparkBlockStore]] keeps them in Spark's BlockManager; unit tests use an in-memory store.
 */
private[sparkkinesis] trait BlockStore extends Serializable {

  /** Stores the records of `shard` under the given id on this JVM's executor; returns where they are. */
  def put(streamId: Int, uniqueId: Long, shard: ShardKey, records: Seq[KinesisRecord]): BlockRef

  /** The block's records, read from whichever executor has them, or None if the block is gone. */
  def get(block: BlockRef): Option[BlockCursor]

  /** Removes blocks from every executor that has them. Called on the driver. */
  def remove(blocks: Seq[BlockRef]): Unit

  /** Removes a block this JVM stored, as a failed task cleans up after itself. */
  def removeLocal(block: BlockRef): Unit

  /**
   * Removes every block of the source `streamId` but those in `keep`, wherever they are: the blocks of
   * prefetch tasks whose results never reached the driver (a failed or cancelled job, a stopped query).
   * Called on the driver.
   */
  def removeAllBut(streamId: Int, keep: Set[BlockRef]): Unit
}

/**
 * Blocks in Spark's BlockManager, as the bytes of their [[BlockLayout]], which Spark keeps in memory as they
 * are and spills to disk when memory runs short (MEMORY_AND_DISK_SER), so a burst of data slows a query down
 * instead of failing it or dropping data.
 */
private[sparkkinesis] object SparkBlockStore extends BlockStore {

  override def put(streamId: Int, uniqueId: Long, shard: ShardKey, records: Seq[KinesisRecord]): BlockRef = {
    val (executorId, host) = SparkBlocks.put(streamId, uniqueId, BlockLayout.write(shard, records))
    BlockRef(streamId, uniqueId, executorId, host)
  }

  override def get(block: BlockRef): Option[BlockCursor] =
    SparkBlocks.get(block.streamId, block.uniqueId).map(buffers => new BlockCursor(block.name, buffers.iterator))

  override def remove(blocks: Seq[BlockRef]): Unit =
    blocks.foreach(b => SparkBlocks.removeEverywhere(b.streamId, b.uniqueId))

  override def removeLocal(block: BlockRef): Unit = SparkBlocks.removeLocal(block.streamId, block.uniqueId)

  override def removeAllBut(streamId: Int, keep: Set[BlockRef]): Unit = {
    val kept = keep.map(_.uniqueId)
    SparkBlocks.uniqueIdsOf(streamId).filterNot(kept.contains).foreach(SparkBlocks.removeEverywhere(streamId, _))
  }
}
