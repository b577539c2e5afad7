// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sparkkinesis

import org.apache.spark.storage.{StorageLevel, StreamBlockId}
import org.apache.spark.SparkEnv

/**
 * The connector's only door into Spark's BlockManager, whose API is private to the `org.apache.spark`
 * package. Blocks are `StreamBlockId`s, a block kind Spark stores, spills, serves to other executors and
 * removes like any other, without tying it to an RDD.
 */
object SparkBlocks {

  /** Serialized in memory, spilled to disk when memory is short. */
  private val Level = StorageLevel.MEMORY_AND_DISK_SER

  /** Stores the chunks on this JVM's BlockManager and tells the driver; returns (executor id, host). */
  /** This executor as a task's preferred location: Spark's `executor_<host>_<id>`. */
  def executorLocation: String = {
    val id = SparkEnv.get.blockManager.blockManagerId
    s"executor_${id.host}_${id.executorId}"
  }

  def put(streamId: Int, uniqueId: Long, chunks: Seq[Array[Byte]]): (String, String) = {
    val manager = SparkEnv.get.blockManager
    val id = StreamBlockId(streamId, uniqueId)
    if (!manager.putIterator[Array[Byte]](id, chunks.iterator, Level, tellMaster = true)) {
      throw new IllegalStateException(s"The BlockManager did not store prefetched block $id")
    }
    (manager.blockManagerId.executorId, manager.blockManagerId.host)
  }

  /**
   * The block's chunks, from this JVM or fetched from the executor that holds them, or None if no executor
   * has it any more. The chunks are read completely here, so no read lock on the block stays behind.
   */
  def get(streamId: Int, uniqueId: Long): Option[Vector[Array[Byte]]] =
    SparkEnv.get.blockManager
      .get[Array[Byte]](StreamBlockId(streamId, uniqueId))
      .map(_.data.map(_.asInstanceOf[Array[Byte]]).toVector)

  /** Asks the driver's BlockManagerMaster to remove the block wherever it is. */
  def removeEverywhere(streamId: Int, uniqueId: Long): Unit =
    SparkEnv.get.blockManager.master.removeBlock(StreamBlockId(streamId, uniqueId))

  /** The ids of the blocks of one source that any executor has told the driver it holds. */
  def uniqueIdsOf(streamId: Int): Seq[Long] =
    SparkEnv.get.blockManager.master
      .getMatchingBlockIds({ case StreamBlockId(`streamId`, _) => true; case _ => false }, askStorageEndpoints = false)
      .collect { case StreamBlockId(_, uniqueId) => uniqueId }
      .toSeq

  def removeLocal(streamId: Int, uniqueId: Long): Unit =
    SparkEnv.get.blockManager.removeBlock(StreamBlockId(streamId, uniqueId), tellMaster = true)
}
