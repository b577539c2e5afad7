// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.shards

import scala.collection.mutable

import io.github.sparkkinesis.client.ShardInfo
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reading.{FetchCursor, ReadEnd, ShardFetchSpec, ShardFetcher, ShardRangeReader}
import io.github.sparkkinesis.testing.{DefaultConfigs, FakeKinesisApi, ManualClock, SeededProperties}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

class ShardLineageSuite extends AnyFunSuite with SeededProperties {

  private def info(id: String, parents: String*): ShardInfo =
    ShardInfo(id, parents.headOption, parents.drop(1).headOption, "0", None)

  private def key(id: String) = ShardKey("s", id)

  test("new shards are read from their start") {
    val tracked = ShardLineage.track(
      Map(key("a") -> ShardPosition.ShardEnd),
      Map(key("a") -> info("a"), key("b") -> info("b", "a"))
    )
    assert(tracked == Map(key("a") -> ShardPosition.ShardEnd, key("b") -> ShardPosition.TrimHorizon))
  }

  test("starting at or after named records: shards not named from their start, ancestors of named ones done") {
    val listed = Map(key("p") -> info("p"), key("c") -> info("c", "p"), key("other") -> info("other"))
    val starts = ShardLineage.startingAfter(Map(key("c") -> ShardPosition.At("42")), listed)
    assert(
      starts == Map(
        key("c") -> ShardPosition.At("42"),
        key("p") -> ShardPosition.ShardEnd,
        key("other") -> ShardPosition.TrimHorizon))
    assert(ShardLineage.readable(key("c"), starts, listed), "a shard starting at a record is read at once")
  }

  test("a child waits until every tracked parent is read to its end") {
    val listed = Map(key("p1") -> info("p1"), key("p2") -> info("p2"), key("c") -> info("c", "p1", "p2"))
    val waiting = Map(
      key("p1") -> ShardPosition.ShardEnd,
      key("p2") -> ShardPosition.After("5"),
      key("c") -> ShardPosition.TrimHorizon
    )
    assert(!ShardLineage.readable(key("c"), waiting, listed))
    assert(ShardLineage.readable(key("p2"), waiting, listed))
    val done = waiting + (key("p2") -> ShardPosition.ShardEnd)
    assert(ShardLineage.readable(key("c"), done, listed))
    assert(!ShardLineage.readable(key("p2"), done, listed))
  }

  test("a parent no longer tracked (expired, or finished before the query began) does not hold back its child") {
    val listed = Map(key("c") -> info("c", "gone"))
    assert(ShardLineage.readable(key("c"), Map(key("c") -> ShardPosition.TrimHorizon), listed))
  }

  test("finished shards leave the offsets once Kinesis stops listing them; unfinished ones stay") {
    val positions = Map(key("done") -> ShardPosition.ShardEnd, key("open") -> ShardPosition.After("3"))
    assert(ShardLineage.track(positions, Map.empty) == Map(key("open") -> ShardPosition.After("3")))
  }

  // ---- property: across any sequence of splits and merges, no shard is read before its parents ----

  private sealed trait Step
  private case class Put(n: Int) extends Step
  private case class Split(pick: Int) extends Step
  private case class Merge(pick: Int) extends Step
  private case object Batch extends Step

  private val steps: Gen[List[Step]] = Gen.listOfN(
    40,
    Gen.frequency(
      4 -> Gen.choose(1, 5).map(Put),
      1 -> Gen.choose(0, 100).map(Split),
      1 -> Gen.choose(0, 100).map(Merge),
      3 -> Gen.const(Batch)
    )
  )

  /** One prefetch call of at most three records: the end of what it read, or ShardEnd once nothing is left. */
  private def advance(api: FakeKinesisApi, clock: ManualClock, key: ShardKey, from: ShardPosition): ShardPosition =
    if (from == ShardPosition.ShardEnd) from
    else {
      val config = DefaultConfigs.Reading.copy(maxRecordsPerFetch = 3)
      val fetcher = new ShardFetcher(api, ShardFetchSpec(key, from, FetchCursor(None, 0, 3)), config, clock)
      fetcher.fetchOnce()
      if (fetcher.recordCount > 0) fetcher.position else if (fetcher.shardEnded) ShardPosition.ShardEnd else from
    }

  test("property: every record is read exactly once, and no shard is read before all of its parents are finished") {
    forAll(Gen.choose(1, 3), steps) { (initialShards, plan) =>
      val clock = new ManualClock()
      val api = new FakeKinesisApi(clock)
      api.createStream("s", initialShards)
      val written = mutable.ArrayBuffer.empty[String]
      val read = mutable.ArrayBuffer.empty[String]
      var positions = Map.empty[ShardKey, ShardPosition]
      def open() = api.listShards("s", 100).filterNot(_.isClosed).map(_.shardId)

      def batch(): Unit = {
        val listed = api.listShards("s", 100).map(i => key(i.shardId) -> i).toMap
        val tracked = ShardLineage.track(positions, listed)
        val end = tracked ++ tracked.keys
          .filter(ShardLineage.readable(_, tracked, listed))
          .map(k => k -> advance(api, clock, k, tracked(k)))
        end.foreach {
          case (k, end: ShardPosition.After) if !tracked.get(k).contains(end) =>
            listed(k).parents.foreach { p =>
              assert(tracked.get(key(p)).forall(_ == ShardPosition.ShardEnd), s"${k.shardId} read before its parent $p")
            }
            read ++= new ShardRangeReader(
              api,
              k,
              tracked(k),
              ReadEnd.Through(end),
              DefaultConfigs.Reading.copy(maxRecordsPerFetch = 3),
              clock).map(r => new String(r.data, "UTF-8"))
          case _ =>
        }
        positions = end
      }

      plan.foreach {
        case Put(n) =>
          val shards = open()
          (1 to n).foreach { i =>
            val data = s"r${written.size}"
            api.put("s", shards(i % shards.size), data)
            written += data
          }
        case Split(pick) =>
          val shards = open()
          api.split("s", shards(pick % shards.size))
        case Merge(pick) =>
          val shards = open()
          if (shards.size >= 2) api.merge("s", shards(pick % shards.size), shards((pick + 1) % shards.size))
        case Batch => batch()
      }
      (1 to 200).foreach(_ => batch())
      assert(read.sorted == written.sorted, "every record read once")
    }
  }

  test("a shard older than a parent that retention removed may have been removed too: data loss, not foreign") {
    val listed = Map(
      ShardKey("s", "shardId-000000000005") ->
        ShardInfo("shardId-000000000005", Some("shardId-000000000003"), None, "9", None))
    assert(ShardLineage.couldHaveExpired(ShardKey("s", "shardId-000000000003"), listed), "a listed shard's parent")
    assert(ShardLineage.couldHaveExpired(ShardKey("s", "shardId-000000000001"), listed), "older than a gone parent")
    assert(!ShardLineage.couldHaveExpired(ShardKey("s", "shardId-000000000004"), listed))
    assert(!ShardLineage.couldHaveExpired(ShardKey("s", "shardId-000000000009"), listed))
    assert(!ShardLineage.couldHaveExpired(ShardKey("s", "my-shard"), listed))
    assert(!ShardLineage.couldHaveExpired(ShardKey("other", "shardId-000000000001"), listed))
  }
}
