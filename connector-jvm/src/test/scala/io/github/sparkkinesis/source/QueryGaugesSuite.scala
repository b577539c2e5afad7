// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import com.codahale.metrics.MetricRegistry
import org.scalatest.funsuite.AnyFunSuite

/** The gauges of a query's metrics, over a fake metric system: names, registration and removal. */
class QueryGaugesSuite extends AnyFunSuite {

  /** A metric system that, as Spark's, keeps each source's registry under its name. */
  private final class FakeMetricSystem {
    val sources = mutable.LinkedHashMap.empty[String, MetricRegistry]
    var removals = 0
    def register(name: String, registry: MetricRegistry): Option[() => Unit] = synchronized {
      assert(!sources.contains(name), s"$name registered twice")
      sources(name) = registry
      Some { () =>
        removals += 1
        sources.remove(name)
      }
    }
    def values(name: String): Map[String, Any] =
      sources(name).getGauges.asScala.map { case (k, g) => k -> g.getValue }.toMap
  }

  private def gauges(system: FakeMetricSystem, query: Option[String], streams: Seq[String] = Seq("orders")) =
    new QueryGauges(streams, () => query, system.register)

  test("a source name is readable and one segment each for the query and the streams") {
    assert(QueryGauges.sourceNameOf("orders-to-s3", Seq("orders")) == "kinesis.orders-to-s3.orders")
    assert(QueryGauges.sourceNameOf("my query.v2/eu", Seq("a.b", "c")) == "kinesis.my_query_v2_eu.a_b_c")
    assert(QueryGauges.sourceNameOf("", Seq("s")) == "kinesis._.s")
    assert(QueryGauges.sourceNameOf("déjà", Seq("s")) == "kinesis.d_j_.s")
    assert(
      QueryGauges.gaugeName("secondsSinceLastSuccessfulCall.my-stream") == "secondsSinceLastSuccessfulCall.my-stream")
    assert(QueryGauges.gaugeName("avgMsBehindLatest") == "avgMsBehindLatest")
  }

  test("the gauges are registered at the first progress, with its numbers, and follow every progress") {
    val system = new FakeMetricSystem
    val query = gauges(system, Some("q1"))
    assert(system.sources.isEmpty, "nothing before the first progress")
    query.publish(Map("maxMsBehindLatest" -> "12", "avgMsBehindLatest" -> "6.5", "mode" -> "polling"))
    assert(query.sourceName.contains("kinesis.q1.orders"))
    assert(system.values("kinesis.q1.orders") == Map("maxMsBehindLatest" -> 12L, "avgMsBehindLatest" -> 6.5))
    query.publish(Map("maxMsBehindLatest" -> "30", "numTotalShards" -> "4"))
    assert(
      system.values("kinesis.q1.orders") == Map("maxMsBehindLatest" -> 30L, "numTotalShards" -> 4L),
      "a figure the progress leaves out has no gauge"
    )
    query.stop()
    query.stop()
    assert(system.sources.isEmpty && system.removals == 1, "removed once")
    query.publish(Map("maxMsBehindLatest" -> "1"))
    assert(system.sources.isEmpty, "nothing registered after the query stopped")
  }

  test("without a label (metrics not enabled) nothing is registered, and stopping is harmless") {
    val system = new FakeMetricSystem
    val query = gauges(system, None)
    query.publish(Map("maxMsBehindLatest" -> "12"))
    query.stop()
    assert(system.sources.isEmpty && system.removals == 0 && query.sourceName.isEmpty)
  }

  test("a restarted query registers its name again; two sources never share a name or a prefix") {
    val system = new FakeMetricSystem
    val first = gauges(system, Some("restarting"))
    first.publish(Map("numTotalShards" -> "1"))
    first.stop()
    val again = gauges(system, Some("restarting"))
    again.publish(Map("numTotalShards" -> "2"))
    assert(again.sourceName.contains("kinesis.restarting.orders"))
    assert(system.values("kinesis.restarting.orders") == Map("numTotalShards" -> 2L))

    // Spark removes a source with every metric whose name starts with the source's name.
    val sameStream = gauges(system, Some("restarting"))
    val longerStream = gauges(system, Some("restarting"), Seq("orders2"))
    sameStream.publish(Map("numTotalShards" -> "3"))
    longerStream.publish(Map("numTotalShards" -> "4"))
    assert(sameStream.sourceName.contains("kinesis-2.restarting.orders"))
    assert(longerStream.sourceName.contains("kinesis-3.restarting.orders2"))
    val names = system.sources.keys.toSeq
    for (a <- names; b <- names if a != b) assert(!b.startsWith(a), s"$b starts with $a")
    Seq(again, sameStream, longerStream).foreach(_.stop())
    assert(system.sources.isEmpty)
    val last = gauges(system, Some("restarting"))
    last.publish(Map("numTotalShards" -> "5"))
    assert(last.sourceName.contains("kinesis.restarting.orders"), "the names were released")
    last.stop()
  }

  test("a metric system that refuses the source leaves the query running without gauges") {
    val query =
      new QueryGauges(Seq("s"), () => Some("q"), (_, _) => throw new IllegalArgumentException("refused"))
    query.publish(Map("numTotalShards" -> "1"))
    assert(query.sourceName.isEmpty)
    query.stop()
    val system = new FakeMetricSystem
    val next = gauges(system, Some("q"), Seq("s"))
    next.publish(Map("numTotalShards" -> "1"))
    assert(next.sourceName.contains("kinesis.q.s"), "the refused name was released")
    next.stop()
  }

  test("numbers are read as the progress writes them") {
    assert(QueryGauges.number("42").contains(42L))
    assert(QueryGauges.number("0.0").contains(0.0))
    assert(QueryGauges.number("1.5E10").contains(1.5e10))
    assert(QueryGauges.number("polling").isEmpty)
  }
}
