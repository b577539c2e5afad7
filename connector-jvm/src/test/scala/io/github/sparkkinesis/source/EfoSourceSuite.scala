// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import io.github.sparkkinesis.config.{ConsumerConfig, ConsumerMode, InitialPosition, TriggerLimits}
import io.github.sparkkinesis.reading.SubscriptionPool
import io.github.sparkkinesis.testing.{StopsFixtureStreams, StreamFixture}
import org.scalatest.funsuite.AnyFunSuite

/** The source under consumerMode efo, against a fake Kinesis. */
class EfoSourceSuite extends AnyFunSuite with StopsFixtureStreams {

  private def efo(names: Option[Seq[String]] = None, deregister: Boolean = false) =
    new StreamFixture(
      InitialPosition.TrimHorizon,
      limits = TriggerLimits(Some(50), None),
      consumer = ConsumerConfig(ConsumerMode.Efo, names, "spark-kinesis_", 300000L, deregister))

  private def consumers(f: StreamFixture): Seq[String] =
    f.api.listConsumers(f.api.describeStream("s").arn).map(_.name)

  test("open shards are read through the consumer named after the query; a closed shard is polled to its end") {
    val f = efo()
    val Seq(parent) = f.api.createStream("s", 1)
    (1 to 30).foreach(i => f.api.put("s", parent, s"p$i"))
    val (children1, children2) = f.api.split("s", parent)
    (1 to 20).foreach(i => f.api.put("s", children1, s"a$i"))
    (1 to 20).foreach(i => f.api.put("s", children2, s"b$i"))
    val (rows, _) = f.readAll(f.initial, 70)
    assert(rows.map(_._2).sorted == ((1 to 30).map(i => s"p$i") ++ (1 to 20).flatMap(i => Seq(s"a$i", s"b$i"))).sorted)
    val parentRows = rows.map(_._2).filter(_.startsWith("p"))
    assert(parentRows == (1 to 30).map(i => s"p$i") && rows.take(30).forall(_._1 == parent), "parent first")
    assert(consumers(f) == Seq(s"spark-kinesis_${StreamFixture.QueryId}"))
    assert(f.api.calls("SubscribeToShard") >= 2, "the children were subscribed to")
    f.stream.stop()
    assert(consumers(f).nonEmpty, "kept: requireConsumerDeregistration is false")
    // A shard thread of the task that the stop interrupted leaves its subscription after its call in flight,
    // which may be after stop() returned: each sweep closes what has been idle long enough.
    val deadline = System.nanoTime() + 5000L * 1000000
    while (f.api.openSubscriptions > 0 && System.nanoTime() < deadline) {
      f.clock.advance(SubscriptionPool.IdleMs)
      f.runtime.pool.closeIdle()
      Thread.sleep(10)
    }
    assert(f.api.openSubscriptions == 0, "the subscriptions left open are closed once idle")
  }

  test("consumerName names the consumer; requireConsumerDeregistration removes it when the query stops") {
    val f = efo(names = Some(Seq("orders")), deregister = true)
    val Seq(shard) = f.api.createStream("s", 1)
    (1 to 10).foreach(i => f.api.put("s", shard, s"r$i"))
    val (rows, _) = f.readAll(f.initial, 10)
    assert(rows.map(_._2) == (1 to 10).map(i => s"r$i"))
    assert(consumers(f) == Seq("spark-kinesis_orders"))
    assert(f.metrics("numRegisteredConsumers") == "1", "the one stream's consumer")
    assert(f.metrics("numStreams") == "1")
    f.stream.stop()
    assert(consumers(f).isEmpty)
    assert(f.metrics("numRegisteredConsumers") == "0", "deregistered: none in use")
  }

  test("a consumer deregistered behind the query's back is registered again, and reading goes on") {
    val f = efo()
    val Seq(shard) = f.api.createStream("s", 1)
    (1 to 10).foreach(i => f.api.put("s", shard, s"r$i"))
    val (first, offset) = f.readAll(f.initial, 10)
    f.api.deregisterConsumer(f.api.describeStream("s").arn, s"spark-kinesis_${StreamFixture.QueryId}")
    (11 to 20).foreach(i => f.api.put("s", shard, s"r$i"))
    val (second, _) = f.readAll(offset, 10)
    assert((first ++ second).map(_._2) == (1 to 20).map(i => s"r$i"))
    assert(consumers(f) == Seq(s"spark-kinesis_${StreamFixture.QueryId}"))
    assert(f.api.calls("RegisterStreamConsumer") == 2)
    f.stream.stop()
  }
}
