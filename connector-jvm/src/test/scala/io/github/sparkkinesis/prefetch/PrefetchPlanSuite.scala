// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reading.{FetchCursor, ShardFetchSpec}
import org.scalatest.funsuite.AnyFunSuite

class PrefetchPlanSuite extends AnyFunSuite {

  private def shards(n: Int, subscribed: Boolean = false): Seq[ShardFetchSpec] =
    (0 until n).map { i =>
      ShardFetchSpec(
        ShardKey("s", f"shardId-$i%012d"),
        ShardPosition.TrimHorizon,
        FetchCursor(None, 0, 10),
        consumerArn = if (subscribed) Some("arn:consumer") else None)
    }

  private def sizes(tasks: Seq[Seq[ShardFetchSpec]]): Seq[Int] = tasks.map(_.size)

  test("on a cluster sized as advised, a task per shardsPerTask polled shards") {
    assert(sizes(PrefetchPlan.tasks(shards(200), shardsPerTask = 5, slots = 80)) == Seq.fill(40)(5))
    assert(
      sizes(PrefetchPlan.tasks(shards(12), shardsPerTask = 5, slots = 100)) == Seq(4, 4, 4),
      "as many tasks, evened out")
  }

  test("on fewer cores, polled shards share as many tasks as half the cores run at once") {
    assert(sizes(PrefetchPlan.tasks(shards(200), shardsPerTask = 5, slots = 2)) == Seq(200))
    assert(sizes(PrefetchPlan.tasks(shards(200), shardsPerTask = 5, slots = 8)) == Seq(50, 50, 50, 50))
    assert(sizes(PrefetchPlan.tasks(shards(3), shardsPerTask = 5, slots = 1)) == Seq(3))
  }

  test("maxPartitions: that many tasks, every shard dealt to them in turn, subscribed or polled") {
    val mixed =
      shards(5) ++ shards(4, subscribed = true).map(s => s.copy(shard = s.shard.copy(shardId = s.shard.shardId + "e")))
    val tasks = PrefetchPlan.tasks(mixed, shardsPerTask = 5, slots = 2, maxPartitions = Some(3))
    assert(sizes(tasks) == Seq(3, 3, 3))
    assert(tasks.flatten.toSet == mixed.toSet, "every shard once")
    assert(sizes(PrefetchPlan.tasks(shards(2), shardsPerTask = 5, slots = 100, maxPartitions = Some(8))) == Seq(1, 1))
    assert(PrefetchPlan.tasks(Nil, shardsPerTask = 5, slots = 2, maxPartitions = Some(3)).isEmpty)
    val max = PrefetchTask.MaxShardsPerTask
    val bounded = PrefetchPlan.tasks(shards(2 * max + 1), shardsPerTask = 5, slots = 2, maxPartitions = Some(1))
    assert(max == 100000 && sizes(bounded) == Seq(66667, 66667, 66667), "more than maxPartitions only for the bound")
  }

  test("with maxPartitions a task has a thread per subscribed shard and shardsPerTask for the polled") {
    val config = io.github.sparkkinesis.testing.DefaultConfigs.Prefetch
    val withMax = config.copy(maxPartitions = Some(1))
    val efo = shards(12, subscribed = true)
    assert(PrefetchTask.threadsFor(efo, config) == config.shardsPerTask, "without it: shardsPerTask")
    assert(PrefetchTask.threadsFor(efo, withMax) == 12)
    assert(PrefetchTask.threadsFor(efo ++ shards(3), withMax) == 13, "one more for the polled shards")
    assert(PrefetchTask.threadsFor(shards(30), withMax) == config.shardsPerTask)
  }

  test("10,000 shards on two cores are one task, not rounds of tasks a record waits through") {
    assert(sizes(PrefetchPlan.tasks(shards(10000), shardsPerTask = 5, slots = 2)) == Seq(10000))
  }

  test("no task holds more shards than a task's blocks can be numbered for") {
    val max = PrefetchTask.MaxShardsPerTask
    val tasks = PrefetchPlan.tasks(shards(2 * max + 1), shardsPerTask = 5, slots = 2)
    assert(max == 100000 && sizes(tasks) == Seq(66667, 66667, 66667), "three tasks, evened out")
    assert(tasks.flatten == shards(2 * max + 1), "every shard once, in order")
  }

  test("subscribed shards keep shardsPerTask to a task, a thread each, whatever the cores") {
    val tasks = PrefetchPlan.tasks(shards(7, subscribed = true) ++ shards(4), shardsPerTask = 3, slots = 2)
    assert(sizes(tasks) == Seq(3, 3, 1, 4))
    assert(tasks.take(3).flatten.forall(_.consumerArn.isDefined) && tasks.last.forall(_.consumerArn.isEmpty))
  }
}
