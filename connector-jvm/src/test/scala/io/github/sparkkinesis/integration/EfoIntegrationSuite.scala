// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.nio.charset.StandardCharsets.UTF_8

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.api.KinesisConsumerManager
import io.github.sparkkinesis.client.ConsumerInfo
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reading.{FetchCursor, ShardFetchSpec, ShardFetcher}
import io.github.sparkkinesis.testing.{DefaultConfigs, RecordedKinesisCalls}
import io.github.sparkkinesis.util.SystemClock
import org.scalatest.funsuite.AnyFunSuite

/**
 * Enhanced fan-out against the emulator: reads through a registered consumer, restarts, subscriptions
 * renewed, consumers deregistered behind the query's back or on stop, and the consumer manager. The
 * emulator pushes an event a second per subscription, so these tests allow for seconds, not milliseconds.
 */
class EfoIntegrationSuite extends AnyFunSuite with SourceIntegration {

  private def efo(stream: String, options: (String, String)*) =
    read(stream)(Seq("initialPosition" -> "trim_horizon", "consumerMode" -> "efo") ++ options: _*)

  private def consumersOf(stream: String): Seq[ConsumerInfo] = admin.listConsumers(admin.describeStream(stream).arn)

  /** A consumer manager built as a Python user builds one: options in a map. */
  private def newManager(): KinesisConsumerManager =
    KinesisConsumerManager.create((Map("endpoint" -> endpoint, "region" -> region) ++ credentialOptions).asJava)

  private def values(prefix: String, n: Int): Seq[String] = (1 to n).map(i => s"$prefix$i")

  test("a multi-shard stream is read exactly once through a consumer named after the query", Integration) {
    val stream = newStream(shards = 3)
    val written = values("a", 300)
    val results = put(stream, written)
    val collector = new BatchCollector
    val query = collector.start(efo(stream), newCheckpoint())
    val delivered = runUntil(collector, query, written.size)
    assert(delivered.sortBy(_.seq) == expected(stream, written, results).sortBy(_.seq))
    assert(delivered.map(_.shardId).distinct.size == 3)
    val Seq(consumer) = consumersOf(stream)
    assert(consumer.name == s"spark-kinesis_${query.id}" && consumer.isActive)
    val metrics = query.lastProgress.sources.head.metrics
    assert(metrics.get("numRegisteredConsumers") == "1" && metrics.get("numStreams") == "1", metrics)
    assert(metrics.get("numAwsRateLimitErrors").toLong >= 0, metrics)
    // Read through subscriptions, not by polling: the shards are open, so none is polled.
    val shards = admin.listShards(stream, 100).map(_.shardId).toSet
    assert(RecordedKinesisCalls.byShard("SubscribeToShard", stream).keySet == shards, "subscribed to each shard")
    assert(RecordedKinesisCalls.count("GetRecords", stream) == 0, "no shard of the stream polled")
  }

  test("a split under a running query is found by shard discovery and its children read", Integration) {
    // The emulator's subscriptions do not announce child shards; listing the shards must find them.
    val stream = newStream(shards = 1)
    val first = values("a", 100)
    val firstResults = put(stream, first)
    val collector = new BatchCollector
    val query = collector.start(efo(stream), newCheckpoint())
    eventually("the first rows", query = Some(query))(collector.rows.nonEmpty)
    val parent = admin.listShards(stream, 100).head
    admin.splitShard(stream, parent.shardId, ((parent.hashKeyRange._1 + parent.hashKeyRange._2) / 2).toString)
    val second = values("b", 100)
    val secondResults = put(stream, second)
    val delivered = runUntil(collector, query, first.size + second.size)
    val written = expected(stream, first, firstResults) ++ expected(stream, second, secondResults)
    assert(delivered.sortBy(_.seq) == written.sortBy(_.seq))
    assert(delivered.map(_.shardId).distinct.size == 3, "the parent and both children")
  }

  test("Trigger.AvailableNow reads what is in the stream through the consumer, then stops", Integration) {
    val stream = newStream(shards = 2)
    val written = values("a", 200)
    val results = put(stream, written)
    val collector = new BatchCollector
    val query = efo(stream).writeStream
      .option("checkpointLocation", newCheckpoint())
      .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow())
      .foreachBatch((batch: org.apache.spark.sql.DataFrame, id: Long) => collector.record(batch, id))
      .start()
    assert(query.awaitTermination(120000), "the AvailableNow run ended by itself")
    assert(query.exception.isEmpty, query.exception)
    assert(seen(collector.rows).sortBy(_.seq) == expected(stream, written, results).sortBy(_.seq))
  }

  test("a restart from the checkpoint goes on after the last record read, with the same consumer", Integration) {
    val stream = newStream(shards = 2)
    val checkpoint = newCheckpoint()
    val first = values("a", 100)
    val firstResults = put(stream, first)
    val options = Seq("consumerName" -> "restarts")
    val collector1 = new BatchCollector
    val before = runUntil(collector1, collector1.start(efo(stream, options: _*), checkpoint), first.size)
    val second = values("b", 100)
    val secondResults = put(stream, second)
    val collector2 = new BatchCollector
    val after = runUntil(collector2, collector2.start(efo(stream, options: _*), checkpoint), second.size)
    val written = expected(stream, first, firstResults) ++ expected(stream, second, secondResults)
    assert((before ++ after).sortBy(_.seq) == written.sortBy(_.seq), "each record exactly once")
    assert(consumersOf(stream).map(_.name) == Seq("spark-kinesis_restarts"), "the consumer was reused")
  }

  test("a subscription that ends is renewed after the last record read", Integration) {
    val stream = newStream(shards = 1)
    val shard = admin.listShards(stream, 100).head.shardId
    val manager = newManager()
    val consumer =
      try manager.registerConsumer(stream, "renewals")
      finally manager.close()
    // Subscriptions live 3 s here instead of Kinesis' five minutes (the emulator's first event takes 2 s);
    // records keep coming meanwhile.
    val config = DefaultConfigs.Reading.copy(subscriptionLifetimeMs = 3000)
    val fetcher = new ShardFetcher(
      admin,
      ShardFetchSpec(
        ShardKey(stream, shard),
        ShardPosition.TrimHorizon,
        FetchCursor(None, 0, 10000),
        consumerArn = Some(consumer)),
      config,
      SystemClock
    )

    /** Reads as a prefetch task does, until `done` or `ms` have passed. */
    def readFor(ms: Long)(done: => Boolean): Unit = {
      val until = System.currentTimeMillis() + ms
      while (!done && System.currentTimeMillis() < until) {
        val wait = fetcher.nextCallAt - System.currentTimeMillis()
        if (wait > 0) Thread.sleep(math.min(wait, 20)) else fetcher.fetchOnce()
      }
    }
    val written = (1 to 40).flatMap { round =>
      val batch = values(s"r$round-", 5)
      put(stream, batch)
      readFor(300)(done = false)
      batch
    }
    try readFor(30000)(fetcher.records.size >= written.size)
    finally fetcher.close()
    assert(fetcher.records.map(r => new String(r.data, UTF_8)) == written)
    assert(fetcher.calls >= 3, "subscribed several times")
  }

  test("a query's subscriptions renewed every few seconds lose and repeat nothing", Integration) {
    val stream = newStream(shards = 2)
    val collector = new BatchCollector
    // Subscriptions live 3 s instead of Kinesis' five minutes; they outlive prefetch tasks, so renewals fall
    // inside tasks and between them while records keep coming.
    val query = collector.start(efo(stream, "internal.subscriptionLifetime" -> "3s"), newCheckpoint())
    val written = (1 to 20).flatMap { round =>
      val batch = values(s"r$round-", 10)
      val results = put(stream, batch)
      Thread.sleep(500)
      expected(stream, batch, results)
    }
    val delivered = runUntil(collector, query, written.size)
    assert(delivered.sortBy(_.seq) == written.sortBy(_.seq))
  }

  test("a consumer deregistered behind the query's back is registered again by the refresh", Integration) {
    val stream = newStream(shards = 1)
    val first = values("a", 50)
    val firstResults = put(stream, first)
    val collector = new BatchCollector
    val query =
      collector.start(efo(stream, "consumerName" -> "refreshed", "consumerRefreshInterval" -> "1s"), newCheckpoint())
    eventually(s"${first.size} rows", query = Some(query))(collector.rows.size >= first.size)
    val Seq(original) = consumersOf(stream)
    admin.deregisterConsumer(admin.describeStream(stream).arn, original.name)
    eventually("the consumer registered again", query = Some(query)) {
      consumersOf(stream).exists(c => c.isActive && c.arn != original.arn)
    }
    val second = values("b", 50)
    val secondResults = put(stream, second)
    val delivered = runUntil(collector, query, first.size + second.size)
    val written = expected(stream, first, firstResults) ++ expected(stream, second, secondResults)
    assert(delivered.sortBy(_.seq) == written.sortBy(_.seq))
  }

  test("requireConsumerDeregistration deregisters the consumer when the query stops", Integration) {
    val stream = newStream(shards = 1)
    put(stream, values("a", 20))
    val collector = new BatchCollector
    val query = collector.start(efo(stream, "requireConsumerDeregistration" -> "true"), newCheckpoint())
    eventually("20 rows", query = Some(query))(collector.rows.size >= 20)
    assert(consumersOf(stream).nonEmpty)
    query.stop()
    eventually("no consumer left")(consumersOf(stream).forall(_.status == "DELETING"))
  }

  test("the consumer manager registers, lists and deregisters consumers", Integration) {
    val stream = newStream(shards = 1)
    val manager = newManager()
    try {
      val arn = manager.registerConsumer(stream, "managed")
      assert(manager.registerConsumer(stream, "managed") == arn, "registering again returns the same consumer")
      val listed = manager.listConsumers(stream).collect().toSeq
      assert(
        listed.map(r =>
          (r.getAs[String]("consumerName"), r.getAs[String]("consumerARN"), r.getAs[String]("consumerStatus"))) ==
          Seq(("managed", arn, "ACTIVE")))
      manager.deregisterConsumer(stream, "managed")
      eventually("deregistered")(manager.consumers(stream).forall(_.status == "DELETING"))
      val missing = intercept[IllegalArgumentException](manager.deregisterConsumer(stream, "never-registered"))
      assert(missing.getMessage.contains("No consumer 'never-registered' is registered with stream"))
      val badName = intercept[IllegalArgumentException](manager.registerConsumer(stream, "no spaces"))
      assert(badName.getMessage.contains("is not a consumer name"))
    } finally manager.close()
  }
}
