// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sparkkinesis

import java.nio.ByteBuffer

import org.apache.spark.storage.{BlockId, ByteBufferBlockData, StorageLevel, StreamBlockId}
import org.apache.spark.util.io.ChunkedByteBuffer
import org.apache.spark.SparkEnv

/**
 * The connector's only door into Spark's BlockManager, whose API is private to the `org.apache.spark`
 * package. Blocks are `StreamBlockId`s, a block kind Spark stores, spills, serves to other executors and
 * removes like any other, without tying it to an RDD. A block is bytes the connector laid out itself, which
 * Spark stores, spills and serves as they are: no serializer touches them.
 */
object SparkBlocks {

  /** Bytes in memory, spilled to disk when memory is short. */
  private val Level = StorageLevel.MEMORY_AND_DISK_SER

  /** This executor as a task's preferred location: Spark's `executor_<host>_<id>`. */
  def executorLocation: String = {
    val id = SparkEnv.get.blockManager.blockManagerId
    s"executor_${id.host}_${id.executorId}"
  }

  /**
   * Stores the chunks on this JVM's BlockManager as they are (the memory store keeps these very arrays) and
   * tells the driver; returns (executor id, host).
   */
  def put(streamId: Int, uniqueId: Long, chunks: Seq[Array[Byte]]): (String, String) = {
    val manager = SparkEnv.get.blockManager
    val id = StreamBlockId(streamId, uniqueId)
    val bytes = new ChunkedByteBuffer(chunks.map(ByteBuffer.wrap).toArray)
    if (!manager.putBytes(id, bytes, Level, tellMaster = true)) {
      throw new IllegalStateException(s"The BlockManager did not store prefetched block $id")
    }
    (manager.blockManagerId.executorId, manager.blockManagerId.host)
  }

  /**
   * The block's bytes, from this JVM or fetched from the executor that holds them, or None if no executor
   * has it any more. A block in this JVM's memory comes as the arrays it was stored as, not copied; one on
   * disk or elsewhere is read into arrays on the heap.
   */
  def get(streamId: Int, uniqueId: Long): Option[Seq[ByteBuffer]] = {
    val id = StreamBlockId(streamId, uniqueId)
    local(id).orElse(SparkEnv.get.blockManager.getRemoteBytes(id).map(_.getChunks().toSeq))
  }

  /**
   * A block of this JVM's. Its read lock is released at once, as Spark's broadcasts do with their pieces:
   * a block in memory is arrays on the heap, which stay whole for the reader if Spark drops or spills the
   * block meanwhile (it frees only buffers off the heap), and one on disk has been read by then. So no lock
   * outlives the call, whether a task, the driver or a failed reader asked.
   */
  private def local(id: BlockId): Option[Seq[ByteBuffer]] = {
    val manager = SparkEnv.get.blockManager
    manager.getLocalBytes(id).map { data =>
      try
        data match {
          case inMemory: ByteBufferBlockData => inMemory.buffer.getChunks().toSeq
          case other => other.toChunkedByteBuffer(ByteBuffer.allocate).getChunks().toSeq
        }
      finally manager.releaseLockAndDispose(id, data)
    }
  }

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
