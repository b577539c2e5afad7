// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import org.scalatest.funsuite.AnyFunSuite

class BatchPartitioningSuite extends AnyFunSuite {

  private def segment(shard: String, bytes: Long, executor: Option[String], order: Long = 0) =
    Segment(
      ShardKey("s", shard),
      ShardPosition.TrimHorizon,
      ShardPosition.After(order.toString),
      records = 1,
      bytes = bytes,
      block = executor.map(e => BlockRef(-1, order, e, s"host$e")),
      order = order
    )

  private def shards(groups: Seq[Seq[Segment]]) = groups.map(_.map(s => s.shard.shardId + "@" + s.order))

  test("blocks at least coalesceThresholdBlockSize on average get a partition each") {
    val segments = (1 to 3).map(i => segment(s"sh$i", 20000000, Some("1"), i))
    assert(BatchPartitioning.group(segments, 10000000, 128000000).map(_.size) == Seq(1, 1, 1))
  }

  test("small blocks are packed toward coalesceBinSize, one executor per partition, a shard's in order") {
    val segments = Seq(
      segment("b", 40, Some("1"), 2),
      segment("a", 40, Some("1"), 1),
      segment("a", 40, Some("1"), 3),
      segment("c", 40, Some("2"), 4),
      segment("d", 40, Some("1"), 5))
    val groups = BatchPartitioning.group(segments, 1000, 100)
    assert(shards(groups) == Seq(Seq("a@1", "a@3"), Seq("b@2", "d@5"), Seq("c@4")))
    assert(BatchPartitioning.locations(groups.head).toSeq == Seq("executor_host1_1"))
  }

  test("stretches to be read from Kinesis again get a partition each") {
    val segments = Seq(segment("a", 0, None), segment("b", 0, None), segment("c", 10, Some("1")))
    val groups = BatchPartitioning.group(segments, 1000, 100)
    assert(shards(groups) == Seq(Seq("c@0"), Seq("a@0"), Seq("b@0")))
    assert(BatchPartitioning.locations(groups(1)).isEmpty)
  }

  test("a partition prefers the executors holding most of its bytes") {
    val group = Seq(segment("a", 10, Some("1")), segment("b", 30, Some("2")), segment("c", 5, Some("1")))
    assert(BatchPartitioning.locations(group).toSeq == Seq("executor_host2_2", "executor_host1_1"))
  }
}
