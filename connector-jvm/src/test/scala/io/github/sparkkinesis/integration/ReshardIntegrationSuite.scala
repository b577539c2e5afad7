// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.client.{PutResult, ShardInfo}
import org.apache.spark.sql.streaming.StreamingQuery
import org.scalatest.funsuite.AnyFunSuite

/**
 * Streams that change shape: splits and merges under a running query, a reshard while the query is
 * stopped, a resharded stream read from its start, many shards, and a stream deleted and created again.
 * Every test checks that each record arrives exactly once and that the records of one partition key arrive
 * in the order they were written, across parent and child shards.
 */
class ReshardIntegrationSuite extends AnyFunSuite with SourceIntegration {

  /** Values `r<i>` with a rising `i` across the test, so the order of writing is in the value. */
  private final class Writer(stream: String) {
    private var next = 0
    val written = Seq.newBuilder[Seen]

    def write(count: Int): Unit = {
      val values = (next until next + count).map(i => s"r$i")
      next += count
      written ++= expected(stream, values, put(stream, values))
    }
  }

  private def indexOf(seen: Seen): Int = seen.data.stripPrefix("r").toInt

  /** Exactly the records written, and per partition key in the order they were written. */
  private def assertExactlyOnceInOrder(delivered: Seq[Seen], written: Seq[Seen]): Unit = {
    assert(delivered.sortBy(_.seq) == written.sortBy(_.seq))
    delivered.groupBy(_.partitionKey).foreach { case (key, rows) =>
      val order = rows.map(indexOf)
      assert(order == order.sorted, s"records of $key arrived out of order: ${order.mkString(",")}")
    }
  }

  /** What the sink holds once `count` rows arrived, in the order it received them. */
  private def deliveredInOrder(collector: BatchCollector, query: StreamingQuery, count: Int): Seq[Seen] =
    runUntil(collector, query, count, seconds = 120)

  private def openShards(stream: String): Seq[ShardInfo] = admin.listShards(stream, 100).filterNot(_.isClosed)

  private def middleOf(shard: ShardInfo): String = ((shard.hashKeyRange._1 + shard.hashKeyRange._2) / 2).toString

  private def fromStart(stream: String) = read(stream)("initialPosition" -> "trim_horizon")

  test("a shard split under a running query: parents before children, nothing lost or repeated", Integration) {
    val stream = newStream(shards = 2)
    val writer = new Writer(stream)
    writer.write(200)
    val collector = new BatchCollector
    val query = collector.start(fromStart(stream), newCheckpoint())
    eventually("the first rows", query = Some(query))(collector.rows.nonEmpty)
    val parent = openShards(stream).head
    admin.splitShard(stream, parent.shardId, middleOf(parent))
    writer.write(200)
    val delivered = deliveredInOrder(collector, query, 400)
    assertExactlyOnceInOrder(delivered, writer.written.result())
    val children = openShards(stream).filter(_.parents.contains(parent.shardId)).map(_.shardId)
    assert(children.size == 2 && delivered.exists(r => children.contains(r.shardId)), "the children were read")
  }

  test("two shards merged under a running query", Integration) {
    val stream = newStream(shards = 3)
    val writer = new Writer(stream)
    writer.write(200)
    val collector = new BatchCollector
    val query = collector.start(fromStart(stream), newCheckpoint())
    eventually("the first rows", query = Some(query))(collector.rows.nonEmpty)
    val Seq(a, b, _) = openShards(stream).sortBy(_.hashKeyRange._1)
    admin.mergeShards(stream, a.shardId, b.shardId)
    writer.write(200)
    val delivered = deliveredInOrder(collector, query, 400)
    assertExactlyOnceInOrder(delivered, writer.written.result())
    val merged = openShards(stream).filter(_.parents.toSet == Set(a.shardId, b.shardId)).map(_.shardId)
    assert(merged.size == 1 && delivered.exists(_.shardId == merged.head), "the merged shard was read")
  }

  test("UpdateShardCount while the query is stopped: the restarted query reads the rest exactly", Integration) {
    val stream = newStream(shards = 2)
    val writer = new Writer(stream)
    writer.write(200)
    val checkpoint = newCheckpoint()
    val first = new BatchCollector
    runUntil(first, first.start(fromStart(stream), checkpoint), 200)
    writer.write(100) // into the old shards, after the query stopped
    admin.updateShardCount(stream, 4)
    writer.write(200)
    val second = new BatchCollector
    val restarted = second.start(fromStart(stream), checkpoint)
    eventually("all rows", seconds = 120, query = Some(restarted))(second.rows.size >= 300)
    restarted.stop()
    val delivered = seen(first.rows) ++ seen(second.rows)
    assertExactlyOnceInOrder(delivered, writer.written.result())
  }

  test("trim_horizon on a stream resharded before the query: closed shards first, then their children", Integration) {
    val stream = newStream(shards = 2)
    val writer = new Writer(stream)
    writer.write(150)
    val parent = openShards(stream).head
    admin.splitShard(stream, parent.shardId, middleOf(parent))
    writer.write(150)
    val Seq(c1, c2) = openShards(stream).filter(_.parents.contains(parent.shardId)).sortBy(_.hashKeyRange._1)
    admin.mergeShards(stream, c1.shardId, c2.shardId)
    writer.write(150)
    val collector = new BatchCollector
    val delivered = deliveredInOrder(collector, collector.start(fromStart(stream), newCheckpoint()), 450)
    assertExactlyOnceInOrder(delivered, writer.written.result())
  }

  test("a stream of 50 shards, listed in pages of maxShardsPerDescribe", Integration) {
    val stream = newStream(shards = 50)
    val writer = new Writer(stream)
    writer.write(1000)
    val collector = new BatchCollector
    val df = read(stream)("initialPosition" -> "trim_horizon", "maxShardsPerDescribe" -> "7")
    val query = collector.start(df, newCheckpoint())
    val delivered = deliveredInOrder(collector, query, 1000)
    assertExactlyOnceInOrder(delivered, writer.written.result())
    assert(query.lastProgress.sources.head.metrics.get("numTotalShards") == "50")
  }

  test("a stream deleted and created again fails the restarted query: it needs a new checkpoint", Integration) {
    val stream = newStream(shards = 1)
    val writer = new Writer(stream)
    writer.write(20)
    val checkpoint = newCheckpoint()
    val first = new BatchCollector
    runUntil(first, first.start(fromStart(stream), checkpoint), 20)
    admin.deleteStream(stream)
    admin.createStream(stream, 1)
    val results: Seq[PutResult] = put(stream, Seq("after"))
    assert(results.forall(_.succeeded))
    val restarted = new BatchCollector().start(fromStart(stream), checkpoint)
    eventually("the query to fail")(restarted.exception.isDefined)
    val message = restarted.exception.get.getMessage
    assert(message.contains("KINESIS_STREAM_RECREATED"), message)
    assert(message.contains(s"Stream '$stream' was deleted and created again"), message)
    assert(message.contains("new checkpoint location"), message)
  }
}
