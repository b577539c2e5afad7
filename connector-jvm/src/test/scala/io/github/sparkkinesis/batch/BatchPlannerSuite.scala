// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.batch

import io.github.sparkkinesis.config.KinesisBatchReadConfig
import io.github.sparkkinesis.errors.{KinesisException, KinesisIllegalArgumentException}
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}
import io.github.sparkkinesis.reading.{ReadEnd, ShardRange, ShardRangeReader}
import io.github.sparkkinesis.testing.{DefaultConfigs, FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

class BatchPlannerSuite extends AnyFunSuite {

  private class Fixture(shards: Int = 2) {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val ids: Seq[String] = api.createStream("s", shards)
    def key(id: String): ShardKey = ShardKey("s", id)
    def config(options: (String, String)*): KinesisBatchReadConfig =
      KinesisBatchReadConfig(Map("streamName" -> "s", "region" -> "us-east-1") ++ options, () => None)

    /** The ranges of a read planned a millisecond later (records arrived before it, not as it was planned). */
    def plan(options: (String, String)*): Seq[ShardRange] = {
      clock.advance(1)
      BatchPlanner.plan(config(options: _*), api, clock)
    }

    /** What the planned ranges read, by reading them as tasks do. */
    def read(ranges: Seq[ShardRange]): Seq[String] = ranges.flatMap { r =>
      new ShardRangeReader(api, r.shard, r.from, r.end, DefaultConfigs.Reading, clock).map(_.sequenceNumber)
    }
  }

  private val OneMiB = 1024L * 1024

  private def offset(positions: (ShardKey, ShardPosition)*): String = KinesisSourceOffset(positions.toMap).json

  test("by default every shard from its start to what had arrived when the read is planned") {
    val f = new Fixture()
    val written = f.ids.flatMap(id => (1 to 5).map(i => f.api.put("s", id, s"$id-$i")))
    val ranges = f.plan()
    val plannedAt = f.clock.nowMillis()
    assert(ranges == f.ids.map(id =>
      ShardRange(f.key(id), ShardPosition.TrimHorizon, ReadEnd.ArrivedBefore(plannedAt, OneMiB))))
    f.clock.advance(10)
    f.api.put("s", f.ids.head, "later")
    assert(f.read(ranges) == written, "what arrived after the planning is not read")
  }

  test("latest as the start, or an instant after the end, is an empty read: no range at all") {
    val f = new Fixture()
    f.api.put("s", f.ids.head, "a")
    assert(f.plan("initialPosition" -> "latest").isEmpty)
    assert(f.plan("initialPosition" -> """{"at_timestamp": "2099-01-01T00:00:00Z"}""").isEmpty)
  }

  test("an instant as the end later than the planning is the planning: the read never waits") {
    val f = new Fixture(shards = 1)
    f.api.put("s", f.ids.head, "a")
    val Seq(range) = f.plan("endPosition" -> """{"at_timestamp": "2099-01-01T00:00:00Z"}""")
    val plannedAt = f.clock.nowMillis()
    assert(range.end == ReadEnd.ArrivedBefore(plannedAt, OneMiB))
  }

  test("an end in time knows the largest record of the stream, or, when it cannot be described, takes 10 MiB") {
    val f = new Fixture(shards = 1)
    f.api.maxRecordBytes = Map("s" -> 5L * OneMiB)
    assert(f.plan().map(_.end) == Seq(ReadEnd.ArrivedBefore(f.clock.nowMillis(), 5L * OneMiB)))
    f.api.denyDescribe = true
    assert(f.plan().map(_.end) == Seq(ReadEnd.ArrivedBefore(f.clock.nowMillis(), 10L * OneMiB)))
  }

  private def sequenceNumbers(at: Map[String, String], after: Map[String, String]): String = {
    def streams(named: Map[String, String]) =
      named.map { case (id, seq) => s""""$id": "$seq"""" }.mkString("{\"s\": {", ", ", "}}")
    Seq("at_sequence_number" -> at, "after_sequence_number" -> after)
      .collect { case (field, named) if named.nonEmpty => s""""$field": ${streams(named)}""" }
      .mkString("{", ", ", "}")
  }

  test("at a record in one shard and after one in the other: exactly the records from there on") {
    val f = new Fixture()
    val Seq(a, b) = f.ids
    val seqs = f.ids.map(id => id -> (1 to 5).map(i => f.api.put("s", id, s"$id-$i"))).toMap
    val ranges = f.plan("initialPosition" -> sequenceNumbers(Map(a -> seqs(a)(2)), Map(b -> seqs(b)(2))))
    assert(
      ranges.map(r => r.shard -> r.from).toMap ==
        Map(f.key(a) -> ShardPosition.At(seqs(a)(2)), f.key(b) -> ShardPosition.After(seqs(b)(2))))
    assert(f.read(ranges) == seqs(a).drop(2) ++ seqs(b).drop(3))
    val onlyA = f.plan("initialPosition" -> sequenceNumbers(Map(a -> seqs(a)(4)), Map.empty))
    assert(f.read(onlyA) == seqs(a).drop(4) ++ seqs(b), "a shard not named is read from its start")
  }

  test("a sequence number not in its shard fails at planning, naming the shard and the option") {
    val f = new Fixture()
    val Seq(a, _) = f.ids
    val first = f.api.put("s", a, "x")
    f.api.put("s", a, "y")
    val (child, _) = f.api.split("s", a)
    f.api.put("s", child, "z")
    def refusal(at: Map[String, String], after: Map[String, String] = Map.empty): String = {
      val e = intercept[KinesisIllegalArgumentException](f.plan("initialPosition" -> sequenceNumbers(at, after)))
      assert(e.getCondition == "KINESIS_START_NOT_IN_SHARD")
      assert(e.getMessage.contains("'initialPosition'"), e.getMessage)
      e.getMessage
    }
    assert(refusal(Map(child -> first)).contains(s"shard $child of stream 's' at sequence number $first"))
    assert(refusal(Map(child -> first)).contains("the shard begins at sequence number"))
    assert(refusal(Map.empty, Map(a -> (first + "0"))).contains("closed and ends at sequence number"))
    assert(refusal(Map("shardId-000000000042" -> "1")).contains("lists no such shard"))
    f.api.trim("s", a, 1)
    assert(refusal(Map(a -> first)).contains("Kinesis refuses it"))
  }

  test("between two offsets: each shard the end names, after the start's position, through the end's") {
    val f = new Fixture()
    val Seq(a, b) = f.ids
    val seqs = f.ids.map(id => id -> (1 to 6).map(i => f.api.put("s", id, s"$id-$i"))).toMap
    val start = offset(f.key(a) -> ShardPosition.After(seqs(a)(1)), f.key(b) -> ShardPosition.TrimHorizon)
    val end = offset(f.key(a) -> ShardPosition.After(seqs(a)(4)), f.key(b) -> ShardPosition.After(seqs(b)(2)))
    val ranges = f.plan("initialPosition" -> start, "endPosition" -> end)
    assert(f.read(ranges) == seqs(a).slice(2, 5) ++ seqs(b).take(3))
    assert(f.plan("initialPosition" -> end, "endPosition" -> end).isEmpty, "from an offset to itself: nothing")
  }

  test("after an offset: shards it does not name are read from their start, but for its shards' ancestors") {
    val f = new Fixture(shards = 1)
    val parent = f.ids.head
    val old = (1 to 3).map(i => f.api.put("s", parent, s"old$i"))
    val (c1, c2) = f.api.split("s", parent)
    val c1Seqs = (1 to 2).map(i => f.api.put("s", c1, s"c1-$i"))
    val start = offset(f.key(c1) -> ShardPosition.After(c1Seqs.head))
    val ranges = f.plan("initialPosition" -> start)
    assert(!ranges.exists(_.shard.shardId == parent), s"the parent was read before the offset: $ranges")
    assert(ranges.map(_.shard.shardId).toSet == Set(c1, c2))
    assert(f.read(ranges) == c1Seqs.drop(1))
    assert(!f.read(ranges).exists(old.contains))
  }

  test("closed shards come before the shards they were split into") {
    val f = new Fixture(shards = 1)
    val parent = f.ids.head
    val (c1, c2) = f.api.split("s", parent)
    val (g1, _) = f.api.split("s", c2)
    val order = f.plan().map(_.shard.shardId)
    assert(order.indexOf(parent) < order.indexOf(c1) && order.indexOf(c2) < order.indexOf(g1), order)
  }

  test("a shard an offset names that Kinesis no longer lists has lost its records, unless failOnDataLoss is false") {
    val f = new Fixture(shards = 1)
    val gone = ShardKey("s", "shardId-000000000099")
    val end = offset(f.key(f.ids.head) -> ShardPosition.ShardEnd, gone -> ShardPosition.After("4960"))
    val e = intercept[KinesisException](f.plan("endPosition" -> end))
    assert(e.getMessage.contains("KINESIS_DATA_LOSS") && e.getMessage.contains(gone.shardId), e.getMessage)
    assert(f.plan("endPosition" -> end, "failOnDataLoss" -> "false").map(_.shard) == Seq(f.key(f.ids.head)))
  }

  test("a stream deleted and created again since the offset was written is refused") {
    val f = new Fixture(shards = 1)
    val recorded = KinesisSourceOffset(
      Map(f.key(f.ids.head) -> ShardPosition.TrimHorizon),
      Map("s" -> io.github.sparkkinesis.offsets.StreamIdentity("arn:aws:kinesis:us-east-1:1:stream/s", 1L)))
    val e = intercept[KinesisException](f.plan("endPosition" -> recorded.json))
    assert(e.getMessage.contains("KINESIS_STREAM_RECREATED"), e.getMessage)
  }
}
