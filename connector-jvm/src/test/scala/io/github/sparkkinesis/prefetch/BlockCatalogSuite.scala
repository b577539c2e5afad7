// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.config.TriggerLimits
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.offsets.ShardPosition.{After, ShardEnd, TrimHorizon}
import io.github.sparkkinesis.reading.FetchCursor
import io.github.sparkkinesis.testing.DefaultConfigs
import org.scalatest.funsuite.AnyFunSuite

class BlockCatalogSuite extends AnyFunSuite {

  private val a = ShardKey("s", "a")
  private val b = ShardKey("s", "b")
  private val noLimits = TriggerLimits(None, None)
  private var uniqueIds = 0L

  private def block(): BlockRef = {
    uniqueIds += 1
    BlockRef(-1, uniqueIds, "1", "host")
  }

  /** A prefetch result for `key` from `from`, with records up to sequence number `to`. */
  private def read(key: ShardKey, from: ShardPosition, to: Option[Int], records: Int = 10, ended: Boolean = false) =
    ShardFetchOutcome(
      key,
      from,
      to.map(seq => Segment(key, from, After(seq.toString), records, records * 100L, Some(block()))),
      reachedEnd = ended,
      cutoffReached = false,
      FetchCursor(Some("iterator"), 0, 10),
      Some(0),
      answeredAt = Some(0),
      calls = 1,
      throttledCalls = 0,
      corruptAggregates = 0,
      failure = None
    )

  private def catalog(positions: (ShardKey, ShardPosition)*): BlockCatalog = {
    val c = new BlockCatalog(DefaultConfigs.Reading.maxRecordsPerFetch)
    c.sync(positions.toMap)
    c
  }

  test("stretches of a shard chain up, and the next prefetch continues where the last ended") {
    val c = catalog(a -> TrimHorizon)
    assert(c.toFetch.map(s => s.shard -> s.from) == Seq(a -> TrimHorizon))
    assert(c.accept(Seq(read(a, TrimHorizon, Some(10)))).isEmpty)
    assert(c.accept(Seq(read(a, After("10"), Some(20)))).isEmpty)
    assert(c.toFetch.map(_.from) == Seq(After("20")))
    assert(c.toFetch.head.cursor.iterator.contains("iterator"))
    assert(c.plan(Map(a -> TrimHorizon), noLimits).ends == Map(a -> After("20")))
    assert(c.bufferedBytes == 2000)
  }

  test("the metrics' figures are worked out once per change, and follow every change") {
    val c = catalog(a -> TrimHorizon, b -> TrimHorizon)
    val quiet = c.gauges
    assert(quiet.bufferedBytes == 0 && quiet.millisBehindLatest.isEmpty)
    c.sync(Map(a -> TrimHorizon, b -> TrimHorizon)) // what Spark's every trigger does while nothing arrives
    assert(c.gauges eq quiet, "asked again with nothing changed")
    c.accept(Seq(read(a, TrimHorizon, Some(10)).copy(millisBehindLatest = Some(700), throttledCalls = 2)))
    val read1 = c.gauges
    assert((read1.bufferedBytes, read1.millisBehindLatest, read1.throttledFetches) == ((1000L, Map(a -> 700L), 2L)))
    c.accept(Seq(read(b, TrimHorizon, None).copy(millisBehindLatest = Some(0)))) // a quiet answer: lag only
    assert(c.gauges.millisBehindLatest == Map(a -> 700L, b -> 0L))
    c.release(Map(a -> After("10")))
    assert(c.gauges.bufferedBytes == 0)
    c.sync(Map(b -> TrimHorizon))
    assert(c.gauges.millisBehindLatest.keySet == Set(b), "a shard no longer read has no lag")
  }

  test("a result from a position the shard has left is refused and its block returned for removal") {
    val c = catalog(a -> TrimHorizon)
    val stale = read(a, After("99"), Some(120))
    assert(c.accept(Seq(stale)) == stale.data.flatMap(_.block).toSeq)
    assert(c.bufferedBytes == 0)
  }

  test("a closed shard read to its end gets an end marker, and is not fetched again") {
    val c = catalog(a -> TrimHorizon)
    c.accept(Seq(read(a, TrimHorizon, Some(10), ended = true)))
    assert(c.plan(Map(a -> TrimHorizon), noLimits).ends == Map(a -> ShardEnd))
    assert(c.toFetch.isEmpty)
    assert(c.covering(a, TrimHorizon, ShardEnd).get.map(_.to) == Seq(After("10"), ShardEnd))
  }

  test("limits take the oldest stretches first across shards and stop at the one that crosses") {
    val c = catalog(a -> TrimHorizon, b -> TrimHorizon)
    c.accept(Seq(read(a, TrimHorizon, Some(10)), read(b, TrimHorizon, Some(50))))
    c.accept(Seq(read(a, After("10"), Some(20))))
    val plan = c.plan(Map(a -> TrimHorizon, b -> TrimHorizon), TriggerLimits(Some(25), None))
    assert(plan.ends == Map(a -> After("10"), b -> After("50")))
    assert(plan.crossing.map(x => (x.segment.shard, x.records, x.anyTaken)) == Some((a, 5L, true)))
    val bytes = c.plan(Map(a -> TrimHorizon, b -> TrimHorizon), TriggerLimits(None, Some(500)))
    assert(bytes.ends.isEmpty)
    assert(bytes.crossing.map(x => (x.bytes, x.anyTaken)) == Some((500L, false)))
  }

  test("a cut splits a stretch on its block; the block is freed only when both parts are committed") {
    val c = catalog(a -> TrimHorizon)
    c.accept(Seq(read(a, TrimHorizon, Some(10))))
    val segment = c.plan(Map(a -> TrimHorizon), TriggerLimits(Some(4), None)).crossing.get.segment
    assert(c.cut(segment, After("4"), records = 4, bytes = 400) == After("4"))
    assert(c.plan(Map(a -> After("4")), noLimits).ends == Map(a -> After("10")))
    assert(c.release(Map(a -> After("4"))).isEmpty, "the second part still needs the block")
    assert(c.bufferedBytes == 600)
    assert(c.release(Map(a -> After("10"))) == segment.block.toSeq)
  }

  test("a batch read from a different position than prefetched restarts the shard there") {
    val c = catalog(a -> TrimHorizon)
    c.accept(Seq(read(a, TrimHorizon, Some(10))))
    val held = c.covering(a, TrimHorizon, After("10")).get.flatMap(_.block)
    assert(c.sync(Map(a -> After("30"))) == held)
    assert(c.toFetch.map(s => (s.from, s.cursor.iterator)) == Seq((After("30"), None)))
    assert(c.covering(a, TrimHorizon, After("10")).isEmpty)
  }

  test("shards no longer readable are forgotten with their blocks") {
    val c = catalog(a -> TrimHorizon, b -> TrimHorizon)
    c.accept(Seq(read(b, TrimHorizon, Some(10))))
    assert(c.sync(Map(a -> TrimHorizon)).size == 1)
    assert(c.toFetch.map(_.shard) == Seq(a))
  }

  test("a range the catalog does not hold from its start to its end is not covered") {
    val c = catalog(a -> TrimHorizon)
    c.accept(Seq(read(a, TrimHorizon, Some(10))))
    assert(c.covering(a, TrimHorizon, After("10")).map(_.map(_.to)) == Some(Seq(After("10"))))
    assert(c.covering(a, After("3"), After("10")).isEmpty, "starts inside a stretch")
    assert(c.covering(a, TrimHorizon, After("12")).isEmpty, "ends beyond what is held")
  }

  test("a position inside a stretch restarts the shard there, so stretches always begin where batches end") {
    val c = catalog(a -> TrimHorizon)
    c.accept(Seq(read(a, TrimHorizon, Some(10))))
    assert(c.sync(Map(a -> After("4"))).size == 1)
    assert(c.toFetch.map(_.from) == Seq(After("4")))
  }

  test("a wait for the next change ends at a change made since the caller looked, or by another thread") {
    def millisOf(wait: => Unit): Long = {
      val started = System.nanoTime()
      wait
      (System.nanoTime() - started) / 1000000
    }
    val c = catalog(a -> TrimHorizon)
    val mark = c.mark
    c.accept(Seq(read(a, TrimHorizon, Some(10)))) // the prefetcher's answer lands before the query's thread waits
    assert(millisOf(c.awaitChange(mark, timeoutMs = 60000)) < 30000, "the change since the mark was missed")
    val answering = new Thread(() => { Thread.sleep(100); c.accept(Seq(read(a, After("10"), Some(20)))) })
    val before = c.mark
    answering.start()
    assert(millisOf(c.awaitChange(before, timeoutMs = 60000)) < 30000, "the other thread's change was missed")
    answering.join()
    assert(millisOf(c.awaitChange(c.mark, timeoutMs = 50)) >= 50, "nothing changed: the whole timeout")
  }
}
