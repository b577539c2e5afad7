// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

/**
 * A block of prefetched records in Spark's BlockManager: its id there, and the executor that stored it.
 * Block ids are Spark's `input-<streamId>-<uniqueId>`, with a `streamId` drawn by each source (see
 * [[BlockRef.newStreamId]]) and a `uniqueId` made of the task attempt that stored it.
 */
private[sparkkinesis] final case class BlockRef(streamId: Int, uniqueId: Long, executorId: String, host: String) {

  /** Spark's notation for "run where this executor is" as a preferred location of a task. */
  def preferredLocation: String = s"executor_${host}_$executorId"

  def name: String = s"input-$streamId-$uniqueId"
}

private[sparkkinesis] object BlockRef {

  /**
   * A block id namespace for one source: at least 2^30, far above the ids DStream receivers count up from
   * 0, and never negative, because executors serving a block to another parse its name as digits only.
   */
  def newStreamId(): Int = (1 << 30) + scala.util.Random.nextInt(Int.MaxValue - (1 << 30))
}
