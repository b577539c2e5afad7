// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import java.time.Instant
import java.util.UUID

import org.scalatest.funsuite.AnyFunSuite

class ProgressFiguresSuite extends AnyFunSuite {

  private val id = UUID.fromString("3f1c2a4e-0000-4000-8000-000000000001")
  private val at = "2026-11-28T13:40:05.123Z"
  private val atMillis = Instant.parse(at).toEpochMilli

  /** The metrics a micro-batch Kinesis source of one stream reports (source/KinesisMicroBatchStream). */
  private val oneStream = Map(
    "avgMsBehindLatest" -> "1500.5",
    "maxMsBehindLatest" -> "3000",
    "minMsBehindLatest" -> "1000",
    "secondsSinceLastSuccessfulCall" -> "1",
    "numTotalShards" -> "4",
    "numClosedShards" -> "1",
    "numStreams" -> "1",
    "numRegisteredConsumers" -> "0",
    "numAwsRateLimitErrors" -> "7",
    "totalPrefetchedBytes" -> "123456",
    "totalPrefetchedRecords" -> "321",
    "numPrefetchedBlocks" -> "3",
    "numThrottledFetches" -> "2",
    "numCorruptAggregatedRecords" -> "0"
  )

  test("every figure of a Kinesis source becomes one datum: its name, unit and value, the query and stream") {
    val data = ProgressFigures.of(id, "orders-to-lake", at, Seq("KinesisV2[orders]" -> oneStream))
    assert(data.map(d => d.name -> d.value).toMap == oneStream.map { case (k, v) => k -> v.toDouble })
    assert(data.size == oneStream.size)
    assert(data.forall(_.dimensions == Seq("Query" -> "orders-to-lake", "Stream" -> "orders")))
    assert(data.forall(_.timestampMillis == atMillis))
    val units = data.map(d => d.name -> d.unit).toMap
    assert(units("maxMsBehindLatest") == "Milliseconds")
    assert(units("avgMsBehindLatest") == "Milliseconds")
    assert(units("secondsSinceLastSuccessfulCall") == "Seconds")
    assert(units("totalPrefetchedBytes") == "Bytes")
    assert(units("numAwsRateLimitErrors") == "Count")
    assert(units("numThrottledFetches") == "Count")
    assert(units("totalPrefetchedRecords") == "Count" && units("numPrefetchedBlocks") == "Count")
  }

  test("an unnamed query is named by its id") {
    val data = ProgressFigures.of(id, null, at, Seq("KinesisV2[orders]" -> Map("numStreams" -> "1")))
    assert(data.map(_.dimensions) == Seq(Seq("Query" -> id.toString, "Stream" -> "orders")))
  }

  test("sources that are not Kinesis streaming reads give nothing, whatever their metrics") {
    val others = Seq(
      "KafkaV2[Subscribe[orders]]" -> oneStream,
      "RateStreamV2[rowsPerSecond=1, rampUpTimeSeconds=0, numPartitions=default" -> oneStream,
      "MemoryStream[value#1]" -> oneStream,
      "KinesisV2[]" -> oneStream,
      "MyKinesisV2[orders]" -> oneStream
    )
    assert(ProgressFigures.of(id, "q", at, others).isEmpty)
    val mixed = ProgressFigures.of(id, "q", at, others :+ ("KinesisV2[orders]" -> Map("numStreams" -> "1")))
    assert(mixed.map(_.name) == Seq("numStreams"))
  }

  test("several streams: source-wide figures under the streams together, per-stream ones under each stream") {
    val metrics = Map(
      "secondsSinceLastSuccessfulCall" -> "40",
      "secondsSinceLastSuccessfulCall.orders" -> "1",
      "secondsSinceLastSuccessfulCall.refunds" -> "40",
      "maxMsBehindLatest" -> "900",
      "maxMsBehindLatest.orders" -> "900",
      "maxMsBehindLatest.refunds" -> "20",
      "numStreams" -> "2"
    )
    val data = ProgressFigures.of(id, "q", at, Seq("KinesisV2[orders,refunds]" -> metrics))
    val seen = data.map(d => (d.name, d.dimensions.toMap.apply("Stream"), d.value)).toSet
    assert(
      seen == Set(
        ("secondsSinceLastSuccessfulCall", "orders,refunds", 40.0),
        ("secondsSinceLastSuccessfulCall", "orders", 1.0),
        ("secondsSinceLastSuccessfulCall", "refunds", 40.0),
        ("maxMsBehindLatest", "orders,refunds", 900.0),
        ("maxMsBehindLatest", "orders", 900.0),
        ("maxMsBehindLatest", "refunds", 20.0),
        ("numStreams", "orders,refunds", 2.0)
      ))
  }

  test("a figure a progress does not carry, or carries as no number, gives no datum") {
    val failing = oneStream -- Seq("avgMsBehindLatest", "maxMsBehindLatest", "minMsBehindLatest") +
      ("numThrottledFetches" -> "n/a") + ("someoneElsesMetric" -> "5")
    val data = ProgressFigures.of(id, "q", at, Seq("KinesisV2[orders]" -> failing))
    assert(!data.exists(_.name.contains("MsBehindLatest")))
    assert(!data.exists(d => d.name == "numThrottledFetches" || d.name == "someoneElsesMetric"))
    assert(data.size == oneStream.size - 4)
  }
}
