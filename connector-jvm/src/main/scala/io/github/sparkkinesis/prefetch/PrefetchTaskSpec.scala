// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.reading.{ArrivalCutoff, ShardFetchSpec}

/**
 * The work of one prefetch task: its shards, read `shardsPerTask` at a time on as many threads (see
 * [[PrefetchPlan]] for how many shards a task holds, and `reading.FetchLoop.lanes` for its threads).
 *
 * @param streamId      the block id namespace of the query's source
 * @param cutoff        under Trigger.AvailableNow where the run's reads end
 * @param maxHeldBytes  the records the task holds before it hands them over (see [[PrefetchTask.MaxHeldBytes]])
 */
private[sparkkinesis] final case class PrefetchTaskSpec(
    shards: Seq[ShardFetchSpec],
    streamId: Int,
    cutoff: Option[ArrivalCutoff],
    maxHeldBytes: Long = PrefetchTask.MaxHeldBytes) {

  /**
   * Where the task should run: the executor where subscriptions of its shards were left open, if any, so
   * that the next task goes on with them instead of subscribing again.
   */
  def preferredLocations: Seq[String] =
    shards
      .filter(_.consumerArn.isDefined)
      .flatMap(_.cursor.executor)
      .groupBy(identity)
      .toSeq
      .sortBy { case (location, times) => (-times.size, location) }
      .take(1)
      .map(_._1)
}
