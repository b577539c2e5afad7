// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.config._
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition, StreamIdentity}
import io.github.sparkkinesis.testing.{StopsFixtureStreams, StreamFixture}
import org.apache.spark.sql.connector.read.streaming.ReadLimit
import org.scalatest.concurrent.Eventually
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.time.{Seconds, Span}

class KinesisMicroBatchStreamSuite extends AnyFunSuite with StopsFixtureStreams with Eventually {

  implicit override val patienceConfig: PatienceConfig = PatienceConfig(timeout = Span(20, Seconds))

  private class Fixture(
      position: InitialPosition,
      streams: Seq[String] = Seq("s"),
      maxRecords: Int = 100,
      limits: TriggerLimits = TriggerLimits(None, None),
      prefetch: PrefetchConfig => PrefetchConfig = identity)
      extends StreamFixture(position, streams, maxRecords, limits, prefetch)

  private def inShard(rows: Seq[(String, String)], shard: String): Seq[String] =
    rows.collect { case (`shard`, data) => data }

  test("trim_horizon starts every shard at its oldest record") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    val shards = f.api.createStream("s", 2)
    assert(f.initial.shards == shards.map(id => ShardKey("s", id) -> ShardPosition.TrimHorizon).toMap)
  }

  test("latest is pinned to the query's start time, and closed shards are done") {
    val f = new Fixture(InitialPosition.Latest)
    val Seq(a, b) = f.api.createStream("s", 2)
    val (c1, c2) = f.api.split("s", b)
    val initial = f.initial
    val started = ShardPosition.AtTimestamp(f.clock.nowMillis())
    assert(
      initial.shards == Map(
        ShardKey("s", a) -> started,
        ShardKey("s", b) -> ShardPosition.ShardEnd,
        ShardKey("s", c1) -> started,
        ShardKey("s", c2) -> started
      )
    )
  }

  test("at_timestamp starts every shard at that instant") {
    val f = new Fixture(InitialPosition.AtTimestamp(1234L))
    val Seq(a) = f.api.createStream("s", 1)
    assert(f.initial.shards == Map(ShardKey("s", a) -> ShardPosition.AtTimestamp(1234L)))
  }

  test("after another query's offset: its shards after their positions; a stream recreated since is refused") {
    // A fixture's Kinesis numbers shards and records from the same start, and stamps a stream with the
    // time it was made: the offset another query wrote for the stream is known before the stream is.
    val shard = ShardKey("s", "shardId-000000000000")
    val second = "49600000000000000000000000000000000000000000000000000002"
    def after(createdAt: Long) = InitialPosition.AfterOffset(
      KinesisSourceOffset(
        Map(shard -> ShardPosition.After(second)),
        Map("s" -> StreamIdentity("arn:aws:kinesis:us-east-1:000000000000:stream/s", createdAt))))
    val created = new io.github.sparkkinesis.testing.ManualClock().nowMillis()
    def fixture(createdAt: Long) = {
      val f = new Fixture(after(createdAt))
      assert(f.api.createStream("s", 1) == Seq(shard.shardId))
      (1 to 4).foreach(i => f.api.put("s", shard.shardId, s"a$i"))
      f
    }
    val f = fixture(created)
    assert(f.initial.shards == Map(shard -> ShardPosition.After(second)))
    val (rows, _) = f.readAll(f.initial, 2)
    assert(rows.map(_._2) == Seq("a3", "a4"))
    val e = intercept[io.github.sparkkinesis.errors.KinesisException](fixture(created - 1000).initial)
    assert(e.getMessage.contains("KINESIS_STREAM_RECREATED"), e.getMessage)
  }

  test("the initial offset is kept in the checkpoint: a restart before the first batch reuses it") {
    val f = new Fixture(InitialPosition.Latest)
    f.api.createStream("s", 1)
    val first = f.stream.initialOffset()
    f.clock.advance(60000)
    assert(f.newStream().initialOffset() == first)
  }

  test("batches are planned over prefetched blocks and read every record once, in order per shard") {
    val f = new Fixture(InitialPosition.TrimHorizon, maxRecords = 7)
    val Seq(a, b) = f.api.createStream("s", 2)
    (1 to 40).foreach(i => f.api.put("s", a, s"a$i"))
    (1 to 25).foreach(i => f.api.put("s", b, s"b$i"))
    val initial = f.initial
    val end = f.next(initial)
    val partitions = f.stream.planInputPartitions(initial, end).map(_.asInstanceOf[KinesisInputPartition])
    assert(partitions.flatMap(_.segments).forall(_.block.isDefined), "every stretch comes from a block")
    assert(partitions.forall(_.preferredLocations().sameElements(Array("executor_host-1_exec-1"))))
    val (rows, _) = f.readAll(initial, 65)
    assert(inShard(rows, a) == (1 to 40).map(i => s"a$i"))
    assert(inShard(rows, b) == (1 to 25).map(i => s"b$i"))
  }

  test("commit frees the blocks of the batch, and nothing prefetched is left once all is read") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    val Seq(a) = f.api.createStream("s", 1)
    (1 to 10).foreach(i => f.api.put("s", a, s"a$i"))
    val initial = f.initial
    val end = f.next(initial)
    assert(f.metrics("totalPrefetchedBytes").toLong > 0)
    val held = f.stream.planInputPartitions(initial, end).flatMap(_.asInstanceOf[KinesisInputPartition].segments)
    f.stream.commit(end)
    assert(held.flatMap(_.block).forall(f.runtime.store.removed.contains))
    assert(f.metrics("totalPrefetchedBytes") == "0")
  }

  test("a batch whose blocks are gone reads the same records again from Kinesis") {
    val f = new Fixture(InitialPosition.TrimHorizon, maxRecords = 4)
    val Seq(a) = f.api.createStream("s", 1)
    (1 to 10).foreach(i => f.api.put("s", a, s"a$i"))
    val initial = f.initial
    val end = f.next(initial)
    val fromBlocks = f.read(initial, end)
    f.runtime.store.remove(f.runtime.store.ids.toSeq.map { case (s, u) => prefetchBlock(s, u) })
    assert(f.read(initial, end) == fromBlocks)
    // A restarted query has no blocks at all: the batch in its offset log is read from Kinesis.
    f.stream.stop()
    f.stream = f.newStream()
    assert(f.read(initial, end) == fromBlocks)
    f.stream.stop()
  }

  test("a run's first offset waits for the prefetcher's first answers: data in the first batch, lag shown") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    val Seq(a, b) = f.api.createStream("s", 2)
    (1 to 5).foreach(i => f.api.put("s", a, s"a$i"))
    val initial = f.initial
    val first = f.latest(initial)
    assert(first.shards(ShardKey("s", a)) != initial.shards(ShardKey("s", a)), "the first batch has data")
    assert(first.shards(ShardKey("s", b)) == initial.shards(ShardKey("s", b)))
    val metrics = f.metrics
    assert(metrics.contains("maxMsBehindLatest") && metrics("numTotalShards") == "2", metrics)
  }

  test("when Spark shuts down under a running query, prefetching ends, failing nothing") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    val Seq(a) = f.api.createStream("s", 1)
    f.api.put("s", a, "a1")
    val end = f.next(f.initial)
    f.runtime.sparkStopped = true
    eventually {
      val before = f.runtime.jobsRun
      Thread.sleep(50)
      assert(f.runtime.jobsRun == before, "the prefetch loop has ended")
    }
    assert(f.latest(end) == end, "no failure reaches the query")
  }

  test("a restarted query replaying its last batch shows the shards and lag, and prefetches the next one") {
    val f = new Fixture(InitialPosition.TrimHorizon, maxRecords = 4)
    val Seq(a, b) = f.api.createStream("s", 2)
    (1 to 10).foreach(i => f.api.put("s", a, s"a$i"))
    val initial = f.initial
    val end = f.next(initial)
    val first = f.read(initial, end)
    f.stream.stop()
    (11 to 15).foreach(i => f.api.put("s", a, s"a$i"))
    f.stream = f.newStream()
    assert(f.read(initial, end) == first, "the replayed batch")
    // The first progress after the restart comes before the source is asked for a new offset.
    assert(f.metrics("numTotalShards") == "2")
    eventually(assert(f.metrics.contains("maxMsBehindLatest")))
    eventually(assert(f.metrics("totalPrefetchedBytes").toLong > 0, "the next batch is prefetched"))
    val (rest, _) = f.readAll(end, 15 - first.size)
    assert((first ++ rest).map(_._2) == (1 to 15).map(i => s"a$i"))
    assert(!(first ++ rest).exists(_._1 == b))
    f.stream.stop()
  }

  private def prefetchBlock(streamId: Int, uniqueId: Long) =
    io.github.sparkkinesis.prefetch.BlockRef(streamId, uniqueId, "exec-1", "host-1")

  test("after a split, the children are read only once the parent is read to its end") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    val Seq(p) = f.api.createStream("s", 1)
    f.api.put("s", p, "before split")
    val initial = f.initial
    val (c1, _) = f.api.split("s", p)
    f.api.put("s", c1, "after split")
    var offset = initial
    val rows = Vector.newBuilder[(String, String)]
    eventually {
      val end = f.latest(offset)
      if (end != offset) {
        val parentOpen = offset.shards(ShardKey("s", p)) != ShardPosition.ShardEnd
        val batch = f.read(offset, end)
        if (parentOpen) assert(!batch.exists(_._1 == c1), "child read before its parent ended")
        rows ++= batch
        f.stream.commit(end)
        offset = end
      }
      assert(rows.result() == Seq(p -> "before split", c1 -> "after split"))
    }
  }

  test("several streams are tracked side by side") {
    val f = new Fixture(InitialPosition.TrimHorizon, streams = Seq("s", "t"))
    val Seq(a) = f.api.createStream("s", 1)
    val Seq(b) = f.api.createStream("t", 1)
    f.api.put("s", a, "x")
    f.api.put("t", b, "y")
    val (rows, _) = f.readAll(f.initial, 2)
    assert(rows.toSet == Set(a -> "x", b -> "y"))
    assert(f.stream.toString == "KinesisV2[s,t]")
    val lag = f.metrics.filter(_._1.contains("MsBehindLatest"))
    assert(
      Seq("", ".s", ".t").forall(s => lag.contains(s"maxMsBehindLatest$s") && lag.contains(s"avgMsBehindLatest$s")),
      lag)
  }

  test("a stream that does not exist fails with its name and the endpoint") {
    val f = new Fixture(InitialPosition.TrimHorizon, streams = Seq("missing"))
    val e = intercept[io.github.sparkkinesis.errors.KinesisException](f.stream.initialOffset())
    assert(e.getMessage.contains("Stream 'missing' was not found at fake-kinesis (region us-east-1)"))
  }

  test("asked again with nothing new, the offset is the one already worked out; new records move it") {
    val f = new StreamFixture(InitialPosition.TrimHorizon, shardFetchIntervalMs = 60000)
    val Seq(a, b) = f.api.createStream("s", 2)
    f.api.put("s", a, "a1")
    val (_, offset) = f.readAll(f.initial, 1)
    // Spark asks about every 10 ms while nothing arrives, from the start it hands back as JSON each time:
    // the same answer, as it was.
    def askAsSparkDoes() = f.latest(f.stream.deserializeOffset(offset.json))
    val same = eventually {
      val first = askAsSparkDoes()
      val again = askAsSparkDoes()
      assert(again eq first, "worked out again although nothing changed")
      again
    }
    assert(same == offset)
    f.api.put("s", b, "b1")
    val moved = f.next(offset)
    assert(f.read(offset, moved) == Seq(b -> "b1"))
    // A limit other than the one asked with is not answered from before.
    assert(f.stream.latestOffset(offset, ReadLimit.maxRows(1)).asInstanceOf[KinesisSourceOffset] == moved)
    f.stream.stop()
  }

  test("the no-argument latestOffset is not used") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    intercept[UnsupportedOperationException](f.stream.latestOffset())
  }

  test("metrics report the lag behind each shard's newest record, prefetched bytes and the shard counts") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    val Seq(a, b) = f.api.createStream("s", 2)
    (1 to 3).foreach(i => f.api.put("s", a, s"a$i"))
    f.api.split("s", b)
    f.next(f.initial)
    eventually(assert(f.metrics.contains("maxMsBehindLatest")))
    val metrics = f.metrics
    assert(metrics("maxMsBehindLatest") == "0")
    assert(metrics("minMsBehindLatest") == "0")
    assert(metrics("avgMsBehindLatest") == "0.0")
    assert(metrics("totalPrefetchedBytes") == "6")
    assert(metrics("numTotalShards") == "4")
    assert(metrics("numClosedShards") == "1")
    assert(metrics("numThrottledFetches") == "0")
    assert(metrics("numAwsRateLimitErrors") == "0")
    assert(metrics("numStreams") == "1")
    assert(metrics("numRegisteredConsumers") == "0", "polling reads through no consumer")
  }

  test("throttled prefetch calls are counted in the metrics, and the data still arrives") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    val Seq(a) = f.api.createStream("s", 1)
    (1 to 5).foreach(i => f.api.put("s", a, s"a$i"))
    f.api.throttleNextGetRecords = 2
    val (rows, _) = f.readAll(f.initial, 5)
    assert(rows.map(_._2) == (1 to 5).map(i => s"a$i"))
    assert(f.metrics("numThrottledFetches") == "2")
    assert(f.metrics("numAwsRateLimitErrors") == "2", "each throttling answer the tasks got")
  }

  test("maxRecordsPerTrigger: batches hold at most that many records, cut exactly inside blocks") {
    val f = new Fixture(InitialPosition.TrimHorizon, limits = TriggerLimits(Some(7), None))
    val Seq(a, b) = f.api.createStream("s", 2)
    (1 to 30).foreach(i => f.api.put("s", a, s"a$i"))
    (1 to 12).foreach(i => f.api.put("s", b, s"b$i"))
    var offset = f.initial
    f.latest(offset) // starts the prefetcher
    val bytes = ((1 to 30).map(i => s"a$i") ++ (1 to 12).map(i => s"b$i")).map(_.length).sum
    eventually(assert(f.metrics.get("totalPrefetchedBytes").contains(bytes.toString)))
    val batches = Vector.newBuilder[Seq[(String, String)]]
    var total = 0
    while (total < 42) {
      val end = f.next(offset)
      val batch = f.read(offset, end)
      batches += batch
      total += batch.size
      f.stream.commit(end)
      offset = end
    }
    val sizes = batches.result().map(_.size)
    assert(sizes.forall(_ <= 7), sizes)
    assert(sizes.init.forall(_ == 7), s"full batches while data is prefetched: $sizes")
    val rows = batches.result().flatten
    assert(inShard(rows, a) == (1 to 30).map(i => s"a$i"))
    assert(inShard(rows, b) == (1 to 12).map(i => s"b$i"))
  }

  test("maxBytesPerTrigger: batches hold at most that many bytes, but always at least one record") {
    val f = new Fixture(InitialPosition.TrimHorizon, limits = TriggerLimits(None, Some(10)))
    val Seq(a) = f.api.createStream("s", 1)
    Seq("aaaa", "bbbb", "cccc", "a-record-longer-than-the-limit", "dd").foreach(d => f.api.put("s", a, d))
    var offset = f.initial
    f.latest(offset) // starts the prefetcher
    eventually(assert(f.metrics.get("totalPrefetchedBytes").contains("44")))
    val batches = (1 to 3).map { _ =>
      val end = f.next(offset)
      val batch = f.read(offset, end).map(_._2)
      f.stream.commit(end)
      offset = end
      batch
    }
    assert(batches == Seq(Seq("aaaa", "bbbb"), Seq("cccc"), Seq("a-record-longer-than-the-limit")))
  }

  test("fetchBufferSize pauses prefetching until batches are committed") {
    val f = new Fixture(
      InitialPosition.TrimHorizon,
      maxRecords = 5,
      prefetch = _.copy(fetchBufferBytes = 20, maxFetchDurationMs = 1)
    )
    val Seq(a) = f.api.createStream("s", 1)
    (1 to 40).foreach(i => f.api.put("s", a, f"r$i%03d"))
    val initial = f.initial
    f.next(initial)
    Thread.sleep(500)
    // Each task reads one call of 5 records (20 bytes); then the buffer is full and prefetching waits.
    assert(f.metrics("totalPrefetchedBytes") == "20")
    val (rows, _) = f.readAll(initial, 40)
    assert(rows.map(_._2) == (1 to 40).map(i => f"r$i%03d"))
  }

  test("Trigger.AvailableNow reads what arrived before the run began, then the offset stops moving") {
    val f = new Fixture(InitialPosition.TrimHorizon, maxRecords = 2)
    val Seq(a, b) = f.api.createStream("s", 2)
    (1 to 5).foreach(i => f.api.put("s", a, s"a$i"))
    f.clock.advance(10)
    f.stream.prepareForTriggerAvailableNow()
    f.clock.advance(10)
    (1 to 3).foreach(i => f.api.put("s", a, s"late-a$i"))
    (1 to 3).foreach(i => f.api.put("s", b, s"late-b$i"))
    var offset = f.initial
    val rows = Vector.newBuilder[(String, String)]
    var moved = true
    while (moved) {
      // Under AvailableNow each call waits for the prefetcher: no polling needed.
      val end = f.latest(offset)
      moved = end != offset
      rows ++= f.read(offset, end)
      f.stream.commit(end)
      offset = end
    }
    assert(rows.result() == (1 to 5).map(i => a -> s"a$i"))
    assert(offset.shards(ShardKey("s", b)) == ShardPosition.TrimHorizon, "b had nothing before the run began")
  }
}
