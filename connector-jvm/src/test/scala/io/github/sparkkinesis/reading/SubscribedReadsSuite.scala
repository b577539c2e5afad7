// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.consumers.ConsumerRegistration
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.prefetch.{PrefetchTask, PrefetchTaskSpec}
import io.github.sparkkinesis.testing.{DefaultConfigs, FakeKinesisApi, InMemoryBlockStore, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

/** Enhanced fan-out reads of a prefetch task, against the fake's subscriptions. */
class SubscribedReadsSuite extends AnyFunSuite {

  private val config = DefaultConfigs.Reading

  private class Fixture(records: Int) {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val shard: String = api.createStream("s", 1).head
    val key: ShardKey = ShardKey("s", shard)
    val seqs: Seq[String] = (1 to records).map(i => api.put("s", shard, s"r$i"))
    val consumer: String =
      ConsumerRegistration.activate(api, "s", api.describeStream("s").arn, "c", clock).arn

    val pool = new SubscriptionPool(idleMs = 3000, clock)

    def fetcher(
        from: ShardPosition = ShardPosition.TrimHorizon,
        reading: ReadConfig = config,
        arrivedBefore: Long = Long.MaxValue) =
      new ShardFetcher(
        api,
        ShardFetchSpec(
          key,
          from,
          FetchCursor(None, 0, config.maxRecordsPerFetch),
          consumerArn = Some(consumer),
          end = if (arrivedBefore == Long.MaxValue) ReadEnd.Open else ReadEnd.ArrivedBefore(arrivedBefore)
        ),
        reading,
        clock,
        pool
      )

    /** Steps as a task does, honouring the pacing, until `done` or `steps` steps. */
    def drive(fetcher: ShardFetcher, steps: Int = 200)(done: ShardFetcher => Boolean): Unit = {
      var left = steps
      while (!done(fetcher) && left > 0) {
        val wait = fetcher.nextCallAt - clock.nowMillis()
        if (wait > 0) clock.sleep(wait) else fetcher.fetchOnce()
        left -= 1
      }
    }

    def data(fetcher: ShardFetcher): Seq[String] = fetcher.records.map(r => new String(r.data, UTF_8))
  }

  test("pushed records are read in order, and the task sees when it has caught up") {
    val f = new Fixture(records = 2500)
    f.api.recordsPerEvent = 1000
    val fetcher = f.fetcher()
    f.drive(fetcher)(_.caughtUp)
    assert(f.data(fetcher) == (1 to 2500).map(i => s"r$i"))
    assert(f.api.calls("GetRecords") == 0 && f.api.calls("GetShardIterator") == 0, "no polling")
    assert(f.api.calls("SubscribeToShard") == 1)
    fetcher.close()
    assert(f.api.openSubscriptions == 1 && f.pool.size == 1, "the task's end leaves its subscription open")
  }

  test("the next task goes on with the subscription the last one left, if it starts where that one ended") {
    val f = new Fixture(records = 20)
    f.api.recordsPerEvent = 10
    val first = f.fetcher()
    f.drive(first)(_.records.size == 10)
    first.close()
    (21 to 25).foreach(i => f.api.put("s", f.shard, s"r$i"))
    val second = f.fetcher(from = ShardPosition.After(f.seqs(9)))
    f.drive(second)(_.caughtUp)
    assert(f.data(second) == (11 to 25).map(i => s"r$i"))
    assert(f.api.calls("SubscribeToShard") == 1, "no new subscription")
    second.close()
    // A task that starts elsewhere (a batch was replayed from an older offset) subscribes anew.
    val elsewhere = f.fetcher(from = ShardPosition.After(f.seqs(4)))
    f.drive(elsewhere)(_.caughtUp)
    assert(f.data(elsewhere) == (6 to 25).map(i => s"r$i"))
    assert(f.api.calls("SubscribeToShard") == 2)
    elsewhere.close()
    f.clock.advance(3000)
    f.pool.closeIdle()
    assert(f.api.openSubscriptions == 0 && f.pool.size == 0, "subscriptions nobody took are closed")
  }

  test("a subscription that ends is renewed after the last record read: nothing lost, nothing twice") {
    val f = new Fixture(records = 50)
    f.api.recordsPerEvent = 7
    f.api.eventsPerSubscription = 2
    val fetcher = f.fetcher(from = ShardPosition.After(f.seqs(4)))
    f.drive(fetcher)(_.caughtUp)
    assert(f.data(fetcher) == (6 to 50).map(i => s"r$i"))
    assert(f.api.calls("SubscribeToShard") >= 4, "renewed several times")
  }

  test("a subscription older than its lifetime is renewed where reading stands") {
    val f = new Fixture(records = 0)
    val fetcher = f.fetcher(reading = config.copy(subscriptionLifetimeMs = 3000))
    (1 to 3).foreach { round =>
      (1 to 5).foreach(i => f.api.put("s", f.shard, s"$round-$i"))
      f.drive(fetcher)(_.records.size == round * 5)
      f.clock.advance(3000)
    }
    assert(f.data(fetcher) == (1 to 3).flatMap(round => (1 to 5).map(i => s"$round-$i")))
    assert(f.api.calls("SubscribeToShard") == 3)
  }

  test("a shard that is busy is subscribed to again after a pause, one second or more") {
    val f = new Fixture(records = 10)
    f.api.subscriptionsInUse = 2
    val fetcher = f.fetcher()
    val start = f.clock.nowMillis()
    f.drive(fetcher)(_.caughtUp)
    assert(f.data(fetcher).size == 10)
    assert(f.clock.nowMillis() - start >= 1000 + 2000, "waited 1 s, then 2 s")
    assert(fetcher.throttled == 0, "busy is not throttled")
  }

  test("the end of a closed shard comes with its last records") {
    val f = new Fixture(records = 10)
    f.api.split("s", f.shard)
    val fetcher = f.fetcher()
    f.drive(fetcher)(_.finished)
    assert(f.data(fetcher).size == 10)
    assert(fetcher.shardEnded)
  }

  test("a consumer gone under a task is reported as such, for the driver to register it again") {
    val f = new Fixture(records = 10)
    f.api.deregisterConsumer(f.api.describeStream("s").arn, "c")
    val spec = PrefetchTaskSpec(
      Seq(ShardFetchSpec(f.key, ShardPosition.TrimHorizon, FetchCursor(None, 0, 100), consumerArn = Some(f.consumer))),
      streamId = 1,
      cutoff = None)
    val Seq(outcome) =
      PrefetchTask.run(
        spec,
        DefaultConfigs.Prefetch,
        config,
        f.api,
        new InMemoryBlockStore,
        f.clock,
        taskAttemptId = 1,
        subscriptions = f.pool)
    assert(outcome.failure.map(_.kind).contains(FetchFailure.ConsumerGone))
    assert(outcome.failure.exists(_.error.getMessage.contains("SubscribeToShard")), outcome.failure)
  }

  test("under AvailableNow a subscription left before the cut-off does not end the shard on an older event") {
    val f = new Fixture(records = 5)
    val before = f.fetcher()
    f.drive(before)(_.caughtUp)
    before.close()
    f.clock.advance(100)
    val cutoff = f.clock.nowMillis()
    val run = f.fetcher(from = ShardPosition.After(f.seqs.last), arrivedBefore = cutoff)
    run.fetchOnce()
    assert(!run.finished, "the first event was asked for before the cut-off: something older may follow")
    f.drive(run)(_.finished)
    assert(run.finished && run.records.isEmpty, "an event asked for after the cut-off, empty: nothing older is left")
    assert(f.api.calls("SubscribeToShard") == 1, "the left subscription was used")
  }
}
