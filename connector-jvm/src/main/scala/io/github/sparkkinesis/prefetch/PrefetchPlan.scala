// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch
import io.github.sparkkinesis.reading.ShardFetchSpec
import io.github.sparkkinesis.util.Dealing

/**
 * How a prefetch job's shards are grouped into tasks, each task reading `shardsPerTask` of its shards at
 * once (a thread each, see [[PrefetchTask]]).
 *
 * Shards read through subscriptions (`consumerMode` efo) wait on pushed events, a thread each: they go
 * `shardsPerTask` to a task. Polled shards are grouped to fit the cores the application has: at most half
 * of them run prefetch tasks, so that the query's batches have the other half, and a task's threads take
 * its shards in turn, each shard when its pacing allows. On a cluster of at least `2 x shards /
 * shardsPerTask` cores, as Databricks advises, that is one task per `shardsPerTask` shards, as it would be
 * anyway; on fewer cores, a job is as many tasks as run at once, instead of rounds of tasks that a record on
 * a shard of the last round waits through. No task holds more than [[PrefetchTask.MaxShardsPerTask]] shards.
 *
 * With `maxPartitions` N, a job has N tasks (fewer with fewer shards), every shard dealt to them in turn,
 * subscribed and polled alike; a task then has a thread per subscribed shard besides its `shardsPerTask`
 * for the polled ones ([[PrefetchTask.threadsFor]]). Only when N tasks would hold more than
 * [[PrefetchTask.MaxShardsPerTask]] shards each does a job have more, as many as that bound needs.
 */
private[sparkkinesis] object PrefetchPlan {

  /**
   * The shards of each task.
   *
   * @param slots how many tasks the application runs at once (its cores)
   */
  def tasks(
      shards: Seq[ShardFetchSpec],
      shardsPerTask: Int,
      slots: Int,
      maxPartitions: Option[Int] = None): Seq[Seq[ShardFetchSpec]] =
    maxPartitions match {
      case Some(n) if shards.nonEmpty =>
        val count = math.max(math.min(n, shards.size), ceilDiv(shards.size, PrefetchTask.MaxShardsPerTask))
        Dealing.inTurn(shards.toIndexedSeq, count)
      case Some(_) => Nil
      case None => byShardsPerTask(shards, shardsPerTask, slots)
    }

  private def byShardsPerTask(shards: Seq[ShardFetchSpec], shardsPerTask: Int, slots: Int): Seq[Seq[ShardFetchSpec]] = {
    val (subscribed, polled) = shards.partition(_.consumerArn.isDefined)
    val polledTasks =
      if (polled.isEmpty) Nil
      else {
        val wanted = math.min(ceilDiv(polled.size, shardsPerTask), math.max(1, slots / 2))
        val count = math.max(wanted, ceilDiv(polled.size, PrefetchTask.MaxShardsPerTask))
        polled.grouped(ceilDiv(polled.size, count)).toSeq
      }
    subscribed.grouped(shardsPerTask).toSeq ++ polledTasks
  }

  private def ceilDiv(a: Int, b: Int): Int = (a + b - 1) / b
}
