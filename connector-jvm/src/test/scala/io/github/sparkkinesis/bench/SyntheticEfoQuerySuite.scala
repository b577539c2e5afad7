// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.client.{KinesisApi, PutRecord}
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.scalatest.funsuite.AnyFunSuite

/**
 * A streaming query of the connector in enhanced fan-out on the benchmarks' synthetic Kinesis, as the soak
 * benchmark runs one: it must read every record once through the synthetic SubscribeToShard, across a split
 * and a merge, and go on after an outage and after its consumer is deregistered behind its back.
 */
class SyntheticEfoQuerySuite extends AnyFunSuite with SparkStreamingSuite {

  private lazy val kinesis = SyntheticKinesis.start(threads = 8, consumerDelayMs = 200)
  private lazy val writer: KinesisApi = kinesis.connectorClient()

  override protected def afterAll(): Unit =
    try super.afterAll()
    finally {
      writer.close()
      kinesis.close()
    }

  /** Writes `n` records, each its own text as data and key; returns the shard and sequence number of each. */
  private def put(stream: String, prefix: String, n: Int): Map[String, (String, String)] = {
    val values = (0 until n).map(i => s"$prefix-$i")
    val results = writer.putRecords(stream, values.map(v => PutRecord(v, v.getBytes(UTF_8))))
    assert(results.forall(_.succeeded))
    values.zip(results).map { case (v, r) => v -> ((r.shardId.get, r.sequenceNumber.get)) }.toMap
  }

  test("a query reads every record once through its consumer, across a split, a merge, an outage and a lost consumer") {
    val stream = s"efo-${java.util.UUID.randomUUID().toString.take(8)}"
    kinesis.create(StreamSpec(stream, shards = 3))
    var written = put(stream, "first", 300)
    val collector = new BatchCollector
    val df = spark.readStream
      .format("kinesis")
      .options(kinesis.connectorOptions)
      .options(
        Map(
          "streamName" -> stream,
          "consumerMode" -> "efo",
          "initialPosition" -> "trim_horizon",
          "shardFetchInterval" -> "1s",
          "consumerRefreshInterval" -> "1s"))
      .load()
    val query = collector.start(df, newCheckpoint())
    try {
      def readAll(): Unit = eventually(s"${written.size} rows", query = Some(query)) {
        collector.rows.size >= written.size
      }
      readAll()
      eventually("a subscription a shard")(kinesis.openSubscriptions == 3)

      kinesis.split(stream, "shardId-000000000000")
      kinesis.merge(stream, "shardId-000000000001", "shardId-000000000002")
      written ++= put(stream, "resharded", 300)
      readAll()

      kinesis.during() {
        eventually("the subscriptions cut")(kinesis.openSubscriptions == 0)
        Thread.sleep(2000) // the query meets the outage for a while: failed calls, subscriptions refused
      }
      written ++= put(stream, "after-outage", 100)
      readAll()

      val consumer = kinesis.stream(stream).consumers.list(System.currentTimeMillis()).map(_.name)
      assert(consumer.size == 1 && kinesis.deregisterConsumer(stream, consumer.head))
      written ++= put(stream, "after-deregistration", 100)
      readAll()
      eventually("the consumer registered again")(
        kinesis.stream(stream).consumers.list(System.currentTimeMillis()).nonEmpty)
    } finally query.stop()

    val read = collector.rows.map { r =>
      new String(r.getAs[Array[Byte]]("data"), UTF_8) -> ((
        r.getAs[String]("shardId"),
        r.getAs[String]("sequenceNumber")))
    }
    assert(read.size == written.size, "no record read twice")
    assert(read.toMap == written)
    assert(read.map(_._2._1).distinct.size == 6, "every shard read: three parents and three children")
    val calls = kinesis.callCounts
    assert(calls("SubscribeToShard") >= 6, calls)
  }
}
