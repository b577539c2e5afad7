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

  test("no task holds more shards than a task's blocks can be numbered for") {
    val tasks = PrefetchPlan.tasks(shards(2500), shardsPerTask = 5, slots = 2)
    assert(sizes(tasks) == Seq(834, 834, 832))
    assert(tasks.flatten == shards(2500), "every shard once, in order")
  }

  test("subscribed shards keep shardsPerTask to a task, a thread each, whatever the cores") {
    val tasks = PrefetchPlan.tasks(shards(7, subscribed = true) ++ shards(4), shardsPerTask = 3, slots = 2)
    assert(sizes(tasks) == Seq(3, 3, 1, 4))
    assert(tasks.take(3).flatten.forall(_.consumerArn.isDefined) && tasks.last.forall(_.consumerArn.isEmpty))
  }
}
