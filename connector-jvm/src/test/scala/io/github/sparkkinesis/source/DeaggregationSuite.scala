// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.config.{InitialPosition, TriggerLimits}
import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardPosition}
import io.github.sparkkinesis.testing.{StopsFixtureStreams, StreamFixture}
import org.scalatest.funsuite.AnyFunSuite

/** The source reads KPL aggregated records as their user records, and can stop and resume inside one. */
class DeaggregationSuite extends AnyFunSuite with StopsFixtureStreams {

  private def aggregate(values: Seq[String]): Array[Byte] =
    AggregatedRecords.encode(values.map(v => UserRecord(s"pk-$v", None, v.getBytes(UTF_8))))

  /** One shard: plain p1, an aggregate of a1..a5, plain p2, an aggregate of b1..b4, plain p3. */
  private def mixed(f: StreamFixture): Seq[String] = {
    val Seq(shard) = f.api.createStream("s", 1)
    f.api.put("s", shard, "p1")
    f.api.putBytes("s", shard, aggregate((1 to 5).map(i => s"a$i")), "pk-a1")
    f.api.put("s", shard, "p2")
    f.api.putBytes("s", shard, aggregate((1 to 4).map(i => s"b$i")), "pk-b1")
    f.api.put("s", shard, "p3")
    Seq("p1") ++ (1 to 5).map(i => s"a$i") ++ Seq("p2") ++ (1 to 4).map(i => s"b$i") ++ Seq("p3")
  }

  test("aggregated and plain records mixed in a shard are read as one row per user record, in order") {
    val f = new StreamFixture(InitialPosition.TrimHorizon)
    val expected = mixed(f)
    val (rows, _) = f.readAll(f.initial, expected.size)
    assert(rows.map(_._2) == expected)
    assert(f.metrics("numCorruptAggregatedRecords") == "0")
    f.stream.stop()
  }

  test("maxRecordsPerTrigger cuts inside aggregates; the offsets say where, and every user record comes once") {
    val f = new StreamFixture(InitialPosition.TrimHorizon, limits = TriggerLimits(Some(3), None))
    val expected = mixed(f)
    var offset = f.initial
    val rows = Vector.newBuilder[String]
    val ends = Vector.newBuilder[ShardPosition]
    var count = 0
    while (count < expected.size) {
      val end = f.next(offset)
      val batch = f.read(offset, end)
      assert(batch.size <= 3)
      rows ++= batch.map(_._2)
      ends ++= end.shards.values
      count += batch.size
      f.stream.commit(end)
      offset = end
    }
    assert(rows.result() == expected)
    val inside = ends.result().collect { case ShardPosition.After(_, Some(sub)) => sub }
    assert(inside.nonEmpty, "some batch ended inside an aggregate")
    f.stream.stop()
  }

  test("a restart that falls inside an aggregated record resumes after the last user record read") {
    val f = new StreamFixture(InitialPosition.TrimHorizon, limits = TriggerLimits(Some(3), None))
    val expected = mixed(f)
    val first = f.next(f.initial) // p1, a1, a2
    assert(f.read(f.initial, first).map(_._2) == Seq("p1", "a1", "a2"))
    f.stream.commit(first)
    assert(first.shards.values.toSeq.collect { case ShardPosition.After(_, sub) => sub } == Seq(Some(1L)))
    // The offset as Spark keeps it in the checkpoint, and a new query over it, with nothing prefetched.
    val restored = KinesisSourceOffset.fromJson(first.json)
    assert(restored == first)
    f.stream.stop()
    f.stream = f.newStream()
    val (rest, _) = f.readAll(restored, expected.size - 3)
    assert(rest.map(_._2) == expected.drop(3))
    f.stream.stop()
  }

  test("a batch that starts and ends inside aggregates reads the same rows from Kinesis when its blocks are gone") {
    val f = new StreamFixture(InitialPosition.TrimHorizon, limits = TriggerLimits(Some(4), None))
    val expected = mixed(f)
    val first = f.next(f.initial)
    f.stream.commit(first)
    val second = f.next(first) // a4, a5, p2, b1: inside the first aggregate to inside the second
    val fromBlocks = f.read(first, second)
    assert(fromBlocks.map(_._2) == expected.slice(4, 8))
    f.stream.stop()
    f.stream = f.newStream()
    assert(f.read(first, second) == fromBlocks)
    f.stream.stop()
  }

  test("a corrupt aggregate (its digest does not match) is passed on as one record and counted") {
    val f = new StreamFixture(InitialPosition.TrimHorizon)
    val Seq(shard) = f.api.createStream("s", 1)
    val broken = aggregate(Seq("x1", "x2"))
    broken(broken.length - 1) = (broken(broken.length - 1) ^ 1).toByte
    f.api.put("s", shard, "before")
    f.api.putBytes("s", shard, broken, "pk")
    f.api.put("s", shard, "after")
    val (rows, _) = f.readAll(f.initial, 3)
    assert(rows.size == 3)
    assert(rows.map(_._2).head == "before" && rows.map(_._2).last == "after")
    assert(rows(1)._2.getBytes(UTF_8).length > 0)
    assert(f.metrics("numCorruptAggregatedRecords") == "1")
    f.stream.stop()
  }
}
