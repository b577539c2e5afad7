// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.client.RecordBatch
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reading.{FetchCursor, FetchFailure, ShardFetchSpec}
import io.github.sparkkinesis.testing.{
  DefaultConfigs,
  DelegatingKinesisApi,
  FakeKinesisApi,
  InMemoryBlockStore,
  ManualClock
}
import io.github.sparkkinesis.util.SystemClock
import org.scalatest.funsuite.AnyFunSuite

/**
 * Tasks run their shards in parallel threads; tests with several shards use the system clock, because a
 * manual clock that sleeping threads move would race them to the deadline.
 */
class PrefetchTaskSuite extends AnyFunSuite {

  private val config = DefaultConfigs.Prefetch.copy(maxFetchDurationMs = 10000)
  private val reading = DefaultConfigs.Reading.copy(maxRecordsPerFetch = 10)

  private def spec(shards: Seq[String], recordsPerCall: Int = 10) =
    PrefetchTaskSpec(
      shards.map(id =>
        ShardFetchSpec(ShardKey("s", id), ShardPosition.TrimHorizon, FetchCursor(None, 0, recordsPerCall))),
      streamId = 7,
      cutoff = None)

  test("a task hands its data over as soon as every shard is caught up, one block per shard") {
    val api = new FakeKinesisApi(new ManualClock())
    val shards = api.createStream("s", 3)
    val written = shards.take(2).map(id => id -> (1 to 25).map(i => api.put("s", id, s"$id-$i")))
    val store = new InMemoryBlockStore
    val started = System.currentTimeMillis()
    val outcomes =
      PrefetchTask.run(
        spec(shards),
        config,
        reading.copy(minFetchPeriodMs = 200),
        api,
        store,
        SystemClock,
        taskAttemptId = 3)
    // Three calls per shard 200 ms apart, not the ten seconds of maxFetchDuration.
    assert(System.currentTimeMillis() - started < 5000, "not waiting out maxFetchDuration")
    written.foreach { case (id, seqs) =>
      val o = outcomes.find(_.shard.shardId == id).get
      val segment = o.data.get
      assert(segment.from == ShardPosition.TrimHorizon)
      assert(segment.to == ShardPosition.After(seqs.last))
      assert(segment.records == 25)
      assert(store.get(segment.block.get).get.records.map(_.sequenceNumber).toSeq == seqs)
    }
    assert(outcomes.find(_.shard.shardId == shards(2)).get.data.isEmpty, "an empty shard stores no block")
    assert(store.ids == Set((7, 3 * PrefetchTask.MaxShardsPerTask), (7, 3 * PrefetchTask.MaxShardsPerTask + 1L)))
  }

  test(
    "a task whose shard is at its tip with nothing new polls at minFetchPeriod, then slower, then gives its core back") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val shards = api.createStream("s", 1)
    val started = clock.nowMillis()
    val outcomes =
      PrefetchTask.run(spec(shards), config, reading, api, new InMemoryBlockStore, clock, taskAttemptId = 1)
    assert(clock.nowMillis() - started == PrefetchTask.IdleEndMs, "not the whole maxFetchDuration")
    assert(outcomes.head.data.isEmpty)
    assert(outcomes.head.calls == 2, "calls at 0 and 400 ms; two quiet calls in a row, the next waits 800 ms")
    assert(outcomes.head.cursor.notBeforeMs == started + 1200, "the next task polls on at that pace")
  }

  test(
    "among many quiet shards, a new record is handed over half a second after it is read, not after every shard's turn") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val shards = api.createStream("s", 200)
    api.put("s", shards.head, "new")
    val started = clock.nowMillis()
    // As a previous task left them: the shards' calls due 10 ms apart, over two seconds; one thread.
    val task = PrefetchTaskSpec(
      shards.zipWithIndex.map { case (id, i) =>
        ShardFetchSpec(ShardKey("s", id), ShardPosition.TrimHorizon, FetchCursor(None, started + 10L * i, 10))
      },
      streamId = 7,
      cutoff = None
    )
    val outcomes =
      PrefetchTask.run(task, config.copy(shardsPerTask = 1), reading, api, new InMemoryBlockStore, clock, 1)
    val took = clock.nowMillis() - started
    assert(took >= PrefetchTask.HandOverMs && took < PrefetchTask.HandOverMs + 50, took)
    assert(outcomes.head.data.map(_.records).contains(1L))
    assert(outcomes.count(_.calls > 0) < 60, "the shards not yet called wait for the next task")
  }

  test("a task with a shard that is still behind reads until maxFetchDuration") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val shards = api.createStream("s", 1)
    (1 to 1000).foreach(i => api.put("s", shards.head, s"r$i"))
    val started = clock.nowMillis()
    val outcomes =
      PrefetchTask.run(spec(shards), config, reading, api, new InMemoryBlockStore, clock, taskAttemptId = 1)
    assert(clock.nowMillis() - started >= config.maxFetchDurationMs)
    assert(outcomes.head.data.map(_.records).contains(25L * 10), "25 calls of 10 records, 400 ms apart")
  }

  test("a task holding MaxHeldBytes of records hands them over, though its shards are behind") {
    val api = new FakeKinesisApi(new ManualClock())
    val shards = api.createStream("s", 2)
    val megabyte = new Array[Byte](1024 * 1024)
    shards.foreach(id => (1 to 100).foreach(i => api.putBytes("s", id, megabyte, s"k$i")))
    // A backlog read as fast as Kinesis' limits allow: 5 calls a second, of 10 MiB each.
    val unpaced = reading.copy(minFetchPeriodMs = 200, maxFetchBytesPerSecond = 1L << 30)
    val started = System.currentTimeMillis()
    val outcomes =
      PrefetchTask.run(spec(shards), config, unpaced, api, new InMemoryBlockStore, SystemClock, 1)
    val held = outcomes.flatMap(_.data).map(_.bytes).sum
    assert(System.currentTimeMillis() - started < 5000, "not waiting out maxFetchDuration")
    // Calls of 10 MiB on two threads: the bound, plus at most the other thread's call in flight.
    assert(
      held >= PrefetchTask.MaxHeldBytes - 20 * megabyte.length && held < PrefetchTask.MaxHeldBytes + 20 * megabyte.length,
      held)
    assert(outcomes.forall(_.data.exists(_.records > 0)), "both shards were read")
  }

  test("a task holds no more than its share of the room left in fetchBufferSize") {
    val api = new FakeKinesisApi(new ManualClock())
    val shards = api.createStream("s", 2)
    val megabyte = new Array[Byte](1024 * 1024)
    shards.foreach(id => (1 to 50).foreach(i => api.putBytes("s", id, megabyte, s"k$i")))
    // Calls of one record, 1 MiB, as fast as the limits allow.
    val unpaced =
      reading.copy(maxRecordsPerFetch = 1, minFetchPeriodMs = 200, maxFetchBytesPerSecond = 1L << 30)
    val share = 8L * megabyte.length
    val task = spec(shards, recordsPerCall = 1).copy(maxHeldBytes = share)
    val outcomes = PrefetchTask.run(task, config, unpaced, api, new InMemoryBlockStore, SystemClock, 1)
    val held = outcomes.flatMap(_.data).map(_.bytes).sum
    // The share, plus at most the other thread's call in flight.
    assert(held >= share - megabyte.length && held <= share + megabyte.length, held)
  }

  test("a job's tasks share the room left in fetchBufferSize, within bounds") {
    val mib = 1024L * 1024
    assert(PrefetchTask.heldBytesPerTask(room = 20 * mib, tasks = 4) == 5 * mib)
    assert(PrefetchTask.heldBytesPerTask(room = 20L * 1024 * mib, tasks = 4) == PrefetchTask.MaxHeldBytes)
    assert(PrefetchTask.heldBytesPerTask(room = 1, tasks = 4) == PrefetchTask.MinHeldBytes, "a job always moves on")
  }

  test("a failed call ends that shard's reading and is reported; the other shards go on") {
    val api = new FakeKinesisApi(new ManualClock())
    val shards = api.createStream("s", 1)
    val bogus = PrefetchTaskSpec(
      Seq(
        ShardFetchSpec(ShardKey("s", shards.head), ShardPosition.TrimHorizon, FetchCursor(None, 0, 10)),
        ShardFetchSpec(ShardKey("gone", "shardId-0"), ShardPosition.TrimHorizon, FetchCursor(None, 0, 10))
      ),
      7,
      None
    )
    val shortTask = config.copy(maxFetchDurationMs = 500)
    val outcomes =
      PrefetchTask.run(bogus, shortTask, reading, api, new InMemoryBlockStore, SystemClock, taskAttemptId = 1)
    val failure = outcomes(1).failure.get
    assert(failure.kind == FetchFailure.Fatal)
    assert(failure.error.getCondition == "KINESIS_STREAM_NOT_FOUND" && failure.error.getMessage.contains("'gone'"))
    assert(outcomes.head.failure.isEmpty)
  }

  test("a task with subscribed shards prefers the executor where their subscriptions were left") {
    def shard(id: String, executor: Option[String], subscribed: Boolean = true) =
      ShardFetchSpec(
        ShardKey("s", id),
        ShardPosition.TrimHorizon,
        FetchCursor(None, 0, 10, executor),
        consumerArn = if (subscribed) Some("arn:consumer") else None)
    val mixed = PrefetchTaskSpec(
      Seq(shard("a", Some("executor_h1_1")), shard("b", Some("executor_h2_2")), shard("c", Some("executor_h2_2"))),
      streamId = 1,
      cutoff = None)
    assert(mixed.preferredLocations == Seq("executor_h2_2"))
    val polled = PrefetchTaskSpec(Seq(shard("a", Some("executor_h1_1"), subscribed = false)), 1, None)
    assert(polled.preferredLocations.isEmpty, "polling runs anywhere")
    assert(PrefetchTaskSpec(Seq(shard("a", None)), 1, None).preferredLocations.isEmpty)
  }

  test("a task with more polled shards than shardsPerTask reads every one, shardsPerTask calls at most at once") {
    val fake = new FakeKinesisApi(new ManualClock())
    val shards = fake.createStream("s", 12)
    val written = shards.map(id => id -> (1 to 5).map(i => fake.put("s", id, s"$id-$i"))).toMap
    val inFlight = new java.util.concurrent.atomic.AtomicInteger()
    val most = new java.util.concurrent.atomic.AtomicInteger()
    val api = new DelegatingKinesisApi(fake) {
      override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch = {
        most.accumulateAndGet(inFlight.incrementAndGet(), math.max(_, _))
        try {
          Thread.sleep(5)
          super.getRecords(stream, shardId, iterator, limit)
        } finally inFlight.decrementAndGet()
      }
    }
    val started = System.currentTimeMillis()
    val outcomes = PrefetchTask.run(
      spec(shards),
      config.copy(shardsPerTask = 3),
      reading.copy(minFetchPeriodMs = 50),
      api,
      new InMemoryBlockStore,
      SystemClock,
      taskAttemptId = 1)
    assert(System.currentTimeMillis() - started < 5000, "ended once every shard was caught up")
    assert(most.get <= 3 && most.get >= 2, s"${most.get} calls at once")
    assert(outcomes.map(_.shard.shardId) == shards)
    outcomes.foreach(o => assert(o.data.map(_.to).contains(ShardPosition.After(written(o.shard.shardId).last))))
  }

  test("a task's threads: a subscribed shard each, polled shards dealt in turn to the rest") {
    def spec(id: String, subscribed: Boolean) =
      ShardFetchSpec(
        ShardKey("s", id),
        ShardPosition.TrimHorizon,
        FetchCursor(None, 0, 10),
        consumerArn = if (subscribed) Some("arn:consumer") else None)
    val polled = (1 to 7).map(i => spec(s"p$i", subscribed = false))
    val subscribed = (1 to 2).map(i => spec(s"e$i", subscribed = true))
    def ids(shards: IndexedSeq[ShardFetchSpec], threads: Int) =
      PrefetchTask.lanesOf(shards.indices, shards, threads).map(_.map(shards(_).shard.shardId))
    assert(ids(polled, 3) == Seq(Seq("p1", "p4", "p7"), Seq("p2", "p5"), Seq("p3", "p6")))
    assert(ids(subscribed ++ polled.take(2), 3) == Seq(Seq("e1"), Seq("e2"), Seq("p1", "p2")))
    assert(ids(polled.take(2), 5) == Seq(Seq("p1"), Seq("p2")))
  }

  test("the quiet period grows with the shards a task's thread reads, to two seconds, then with its calls") {
    def quiet(polled: Int, subscribed: Int = 0, shardsPerTask: Int = 5) = {
      val specs = (0 until polled + subscribed).map { i =>
        ShardFetchSpec(
          ShardKey("s", s"shardId-$i"),
          ShardPosition.TrimHorizon,
          FetchCursor(None, 0L, 10),
          consumerArn = if (i < subscribed) Some("arn:consumer") else None)
      }
      PrefetchTask.quietPeriodMs(
        PrefetchTask.lanesOf(specs.indices, specs, shardsPerTask),
        specs,
        minFetchPeriodMs = 400)
    }
    assert(quiet(4) == 800, "four shards on five threads: each alone, called every other minFetchPeriod")
    assert(quiet(1) == 2 * 400 && PrefetchTask.QuietPeriodsAlone == 2)
    assert(quiet(10) == 800)
    assert(quiet(5, subscribed = 3) == 1200, "three subscribed shards take three of the five threads")
    assert(quiet(1000) == PrefetchTask.MaxQuietPeriodMs)
    assert(quiet(5000) == PrefetchTask.MaxQuietPeriodMs, "a thousand shards a thread: 500 calls a second")
    assert(quiet(10000) == 4000, "two thousand a thread: still 500 calls a second, each shard every 4 s")
  }
}
