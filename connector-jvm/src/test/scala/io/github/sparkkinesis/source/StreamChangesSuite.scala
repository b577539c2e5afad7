// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import scala.collection.mutable

import io.github.sparkkinesis.config.{InitialPosition, TriggerLimits}
import io.github.sparkkinesis.errors.KinesisException
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey}
import io.github.sparkkinesis.testing.{SeededProperties, StopsFixtureStreams, StreamFixture}
import org.scalacheck.Gen
import org.scalatest.concurrent.Eventually
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.time.{Seconds, Span}

/**
 * A stream changing under the query: reshards, records trimmed by retention, closed shards that expire,
 * and a stream deleted and created again, against a fake Kinesis.
 */
class StreamChangesSuite extends AnyFunSuite with StopsFixtureStreams with Eventually with SeededProperties {

  implicit override val patienceConfig: PatienceConfig = PatienceConfig(timeout = Span(20, Seconds))

  private def threeAtATime(failOnDataLoss: Boolean = true) =
    new StreamFixture(
      InitialPosition.TrimHorizon,
      limits = TriggerLimits(Some(3), None),
      reading = _.copy(failOnDataLoss = failOnDataLoss))

  /** Reads one batch of at most three records and commits it; stops the stream as a query stop would. */
  private def firstBatchThenStop(f: StreamFixture): KinesisSourceOffset = {
    val initial = f.initial
    val end = f.next(initial)
    f.read(initial, end)
    f.stream.commit(end)
    f.stream.stop()
    end
  }

  private def failure(f: StreamFixture, from: KinesisSourceOffset): String =
    eventually(intercept[KinesisException](f.latest(from)).getMessage)

  test("a stream deleted and created again since the checkpoint fails the query, naming what to do") {
    val f = threeAtATime()
    val Seq(a) = f.api.createStream("s", 1)
    (1 to 5).foreach(i => f.api.put("s", a, s"a$i"))
    val initial = f.initial
    assert(initial.identities.contains("s"), "the offsets record which stream 's' is")
    val end = f.next(initial)
    f.stream.commit(end)
    f.stream.stop()
    f.api.deleteStream("s")
    f.clock.advance(60000)
    f.api.createStream("s", 1)
    f.stream = f.newStream()
    val message = failure(f, end)
    assert(message.contains("KINESIS_STREAM_RECREATED"), message)
    assert(message.contains("start the query with a new checkpoint location"), message)
    // A restarted query replays its last batch first: that fails the same way, before any task reads.
    val replay = intercept[KinesisException](f.newStream().planInputPartitions(initial, end))
    assert(replay.getMessage.contains("KINESIS_STREAM_RECREATED"))
  }

  test("without DescribeStreamSummary, a recreated stream is told by its shards") {
    val f = threeAtATime()
    f.api.denyDescribe = true
    val Seq(a) = f.api.createStream("s", 1)
    (1 to 5).foreach(i => f.api.put("s", a, s"a$i"))
    val end = firstBatchThenStop(f)
    assert(end.identities.isEmpty)
    f.api.deleteStream("s")
    f.api.createStream("s", 1)
    f.stream = f.newStream()
    val message = failure(f, end)
    assert(message.contains("KINESIS_STREAM_RECREATED"), message)
    assert(message.contains(s"shard $a now begins at sequence number"), message)
  }

  test("records trimmed before the query read them fail it, naming the records and failOnDataLoss") {
    val f = threeAtATime()
    val Seq(a) = f.api.createStream("s", 1)
    val seqs = (1 to 6).map(i => f.api.put("s", a, s"a$i"))
    val end = firstBatchThenStop(f)
    f.api.trim("s", a, 5)
    f.stream = f.newStream()
    val message = failure(f, end)
    assert(message.contains("KINESIS_DATA_LOSS"), message)
    assert(message.contains(s"records after sequence number ${seqs(2)} of shard $a"), message)
    assert(message.contains(""".option("failOnDataLoss", "false")"""), message)
  }

  test("with failOnDataLoss false, reading goes on from the oldest record still there") {
    val f = threeAtATime(failOnDataLoss = false)
    val Seq(a) = f.api.createStream("s", 1)
    (1 to 6).foreach(i => f.api.put("s", a, s"a$i"))
    val end = firstBatchThenStop(f)
    f.api.trim("s", a, 5)
    f.stream = f.newStream()
    val (rows, _) = f.readAll(end, 1)
    assert(rows == Seq(a -> "a6"))
  }

  test("a closed shard that expired before it was read to its end: data loss, or skipped when allowed") {
    for (failOnDataLoss <- Seq(true, false)) {
      val f = threeAtATime(failOnDataLoss)
      val Seq(p) = f.api.createStream("s", 1)
      val seqs = (1 to 5).map(i => f.api.put("s", p, s"p$i"))
      val end = firstBatchThenStop(f)
      val (child, _) = f.api.split("s", p)
      f.api.put("s", child, "c1")
      f.api.expire("s", p)
      f.stream = f.newStream()
      if (failOnDataLoss) {
        val message = failure(f, end)
        assert(message.contains(s"records after sequence number ${seqs(2)} of shard $p"), message)
        assert(message.contains("retention period ended"), message)
      } else assert(f.readAll(end, 1)._1 == Seq(child -> "c1"))
      f.stream.stop()
    }
  }

  test("a checkpoint naming a shard the stream never had fails as not this stream's, never as data loss") {
    for (failOnDataLoss <- Seq(true, false)) {
      val f = threeAtATime(failOnDataLoss)
      val Seq(p) = f.api.createStream("s", 1)
      (1 to 5).foreach(i => f.api.put("s", p, s"p$i"))
      val end = firstBatchThenStop(f)
      val edited = end.copy(shards = end.shards.map { case (k, v) => ShardKey(k.stream, "shardId-000000000099") -> v })
      f.stream = f.newStream()
      val message = failure(f, edited)
      assert(
        message.startsWith(
          "[KINESIS_CHECKPOINT_FOREIGN] This query's checkpoint names shard " +
            s"shardId-000000000099 of stream 's', which that stream never had: Kinesis lists $p,"),
        message
      )
      f.stream.stop()
      // A restarted query replaying a batch that ends there fails the same way, before any task reads.
      f.stream = f.newStream()
      val replay = intercept[KinesisException](f.stream.planInputPartitions(end, edited))
      assert(replay.getCondition == "KINESIS_CHECKPOINT_FOREIGN", replay.getMessage)
      f.stream.stop()
    }
  }

  test("a checkpoint of a query that read other streams fails naming them, new batch or replay") {
    val f = threeAtATime()
    val Seq(p) = f.api.createStream("s", 1)
    (1 to 5).foreach(i => f.api.put("s", p, s"p$i"))
    val end = firstBatchThenStop(f)
    val other = new StreamFixture(InitialPosition.TrimHorizon, streams = Seq("t", "u"))
    other.api.createStream("t", 1)
    other.api.createStream("u", 1)
    val message = intercept[KinesisException](other.latest(end)).getMessage
    assert(
      message.startsWith(
        "[KINESIS_CHECKPOINT_OTHER_STREAMS] This query's checkpoint was written reading stream 's', and this " +
          "query reads streams 't', 'u', not stream 's'. A checkpoint belongs to the streams it was written " +
          "for: set the option 'streamName' back to 's', or start the query with a new checkpoint location"),
      message
    )
    val replay = intercept[KinesisException](other.newStream().planInputPartitions(end, end))
    assert(replay.getCondition == "KINESIS_CHECKPOINT_OTHER_STREAMS")
  }

  test("the first listing of the shards is tried again when Kinesis fails") {
    val f = threeAtATime()
    f.api.createStream("s", 2)
    f.api.failNextListShards = 3
    assert(f.initial.shards.size == 2)
  }

  private sealed trait Step
  private case class Put(records: Int) extends Step
  private case class Split(pick: Int) extends Step
  private case class Merge(pick: Int) extends Step
  private case object Batch extends Step

  private val plans: Gen[List[Step]] = Gen.listOfN(
    12,
    Gen.frequency(
      3 -> Gen.choose(1, 4).map(Put),
      1 -> Gen.choose(0, 100).map(Split),
      1 -> Gen.choose(0, 100).map(Merge),
      3 -> Gen.const(Batch)
    )
  )

  test("property: through splits and merges under a running query, every record arrives once, parents first") {
    forAll(Gen.choose(1, 3), plans, minSuccessful(12)) { (initialShards, plan) =>
      val f = new StreamFixture(InitialPosition.TrimHorizon, maxRecords = 2, limits = TriggerLimits(Some(4), None))
      val open = mutable.ArrayBuffer(f.api.createStream("s", initialShards): _*)
      val parents = mutable.Map.empty[String, Seq[String]]
      val written = mutable.ArrayBuffer.empty[String]
      val delivered = mutable.ArrayBuffer.empty[(String, String)]
      var offset = f.initial
      def batch(): Unit = {
        val end = f.latest(offset)
        delivered ++= f.read(offset, end)
        f.stream.commit(end)
        offset = end
      }
      plan.foreach {
        case Put(n) =>
          for (id <- open; _ <- 1 to n) {
            val data = s"$id-${written.size}"
            f.api.put("s", id, data)
            written += data
          }
        case Split(pick) =>
          val parent = open.remove(pick % open.size)
          val (c1, c2) = f.api.split("s", parent)
          Seq(c1, c2).foreach(c => parents(c) = Seq(parent))
          open ++= Seq(c1, c2)
        case Merge(pick) if open.size >= 2 =>
          val i = pick % (open.size - 1)
          val (a, b) = (open(i), open(i + 1))
          val child = f.api.merge("s", a, b)
          parents(child) = Seq(a, b)
          open --= Seq(a, b)
          open += child
        case Merge(_) =>
        case Batch => batch()
      }
      while (delivered.size < written.size) {
        val end = f.next(offset)
        delivered ++= f.read(offset, end)
        f.stream.commit(end)
        offset = end
      }
      // One more batch, so that the offset is planned after the plan's last reshard too.
      batch()
      f.stream.stop()
      val data = delivered.map(_._2)
      assert(data.distinct.size == data.size, "no record twice")
      assert(data.toSet == written.toSet, "every record")
      val position = delivered.zipWithIndex.groupBy(_._1._1).map { case (shard, at) => shard -> at.map(_._2) }
      parents.foreach { case (child, ps) =>
        ps.foreach { parent =>
          val (last, first) =
            (position.getOrElse(parent, Seq(-1)).max, position.getOrElse(child, Seq(Int.MaxValue)).min)
          assert(last < first, s"a record of $child arrived before the last of its parent $parent")
        }
      }
      assert(open.forall(id => offset.shards.contains(ShardKey("s", id))), "every open shard is tracked")
    }
  }
}
