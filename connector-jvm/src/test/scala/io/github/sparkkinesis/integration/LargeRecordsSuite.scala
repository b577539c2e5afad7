// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.scalatest.funsuite.AnyFunSuite
import software.amazon.awssdk.services.kinesis.model.UpdateMaxRecordSizeRequest

/**
 * Records up to 10 MiB, on the benchmarks' synthetic Kinesis with a stream's maximum record size raised:
 * 2, 5 and 10 MiB records among small ones, written by the sink (plain and with KPL aggregation) and read
 * exactly once by a micro-batch query (polling and enhanced fan-out), a Trigger.AvailableNow run and a batch
 * read; a record larger than its stream takes refused before anything of it is sent, with its row named.
 * Reading is the same code on every Spark line: the suite runs on the primary line's (a shard reads 2 MB a
 * second at most, so each read of its 18 MiB takes seconds).
 */
class LargeRecordsSuite extends AnyFunSuite with SparkStreamingSuite {

  private lazy val kinesis = SyntheticKinesis.start(threads = 4)

  override protected def afterAll(): Unit =
    try super.afterAll()
    finally kinesis.close()

  private val MiB = 1024 * 1024

  /** Partition key, and data size: the 10 MiB one fills its record to the byte (data and key). */
  private val Records: Seq[(String, Int)] = Seq(
    "small-1" -> 100,
    "large-2m" -> 2 * MiB,
    "small-2" -> 1000,
    "large-5m" -> 5 * MiB,
    "small-3" -> 10,
    "large-10m" -> (10 * MiB - "large-10m".length),
    "small-4" -> 500,
    "large-1m1" -> (MiB + 1)
  )

  /** A record's data: its key, then bytes of its own, so that a row shows which record it is and whole. */
  private def dataOf(key: String, size: Int): Array[Byte] = {
    val data = new Array[Byte](size)
    val head = s"$key:".getBytes(UTF_8)
    System.arraycopy(head, 0, data, 0, math.min(head.length, size))
    var i = head.length
    while (i < size) { data(i) = (i * 31 + key.length).toByte; i += 1 }
    data
  }

  private def digest(data: Array[Byte]): String =
    MessageDigest.getInstance("SHA-256").digest(data).map("%02x".format(_)).mkString

  private def seen(rows: Seq[Row]): Seq[(String, Int, String)] =
    rows.map { r =>
      val data = r.getAs[Array[Byte]]("data")
      (r.getAs[String]("partitionKey"), data.length, digest(data))
    }

  private def largeStream(shards: Int = 2, maxRecordKiB: Int = 10240): String = {
    val name = s"large-${java.util.UUID.randomUUID().toString.take(8)}"
    kinesis.create(StreamSpec(name, shards, maxRecordKiB = maxRecordKiB))
    name
  }

  /** The records as rows, in `partitions` writing tasks. */
  private def frame(records: Seq[(String, Int)], partitions: Int): DataFrame = {
    val session: SparkSession = spark
    import session.implicits._
    records.map { case (key, size) => (key, dataOf(key, size)) }.toDF("partitionKey", "data").repartition(partitions)
  }

  private def write(stream: String, records: Seq[(String, Int)], options: (String, String)*): Unit =
    writeIn(2)(stream, records, options: _*)

  private def writeIn(partitions: Int)(stream: String, records: Seq[(String, Int)], options: (String, String)*): Unit =
    frame(records, partitions).write
      .format("kinesis")
      .options(kinesis.connectorOptions + ("streamName" -> stream))
      .options(options.toMap)
      .mode("append")
      .save()

  private def source(stream: String, options: (String, String)*): Map[String, String] =
    kinesis.connectorOptions ++ Map(
      "streamName" -> stream,
      "initialPosition" -> "trim_horizon",
      "maxFetchRate" -> "2.0") ++
      options

  /** Each record once, whole: no row twice, none missing, none cut. */
  private def assertExactlyOnce(rows: Seq[Row], records: Seq[(String, Int)] = Records): Unit = {
    val got = seen(rows)
    assert(got.size == records.size, s"${got.size} rows for ${records.size} records: ${got.map(_._1).sorted}")
    assert(got.toSet == records.map { case (key, size) => (key, size, digest(dataOf(key, size))) }.toSet)
  }

  Seq("polling", "efo").foreach { mode =>
    test(s"a streaming query ($mode) reads records of up to 10 MiB exactly once, whole") {
      val stream = largeStream()
      write(stream, Records)
      val collector = new BatchCollector
      val query = collector.start(
        spark.readStream.format("kinesis").options(source(stream, "consumerMode" -> mode)).load(),
        newCheckpoint())
      try {
        eventually(s"${Records.size} rows", query = Some(query))(collector.rows.size >= Records.size)
        Thread.sleep(1000) // a record read twice would show in the next batches
        assertExactlyOnce(collector.rows)
      } finally query.stop()
    }
  }

  test("an AvailableNow run reads every large record written just before it starts, and ends") {
    val stream = largeStream()
    write(stream, Records)
    val collector = new BatchCollector
    collector.runAvailableNow(spark.readStream.format("kinesis").options(source(stream)).load(), newCheckpoint())
    assertExactlyOnce(collector.rows)
  }

  test("a batch read with an end in time reads every large record that arrived before it") {
    val stream = largeStream()
    write(stream, Records)
    val end = java.time.Instant.ofEpochMilli(System.currentTimeMillis() + 1)
    Thread.sleep(20)
    write(stream, Seq("after-end" -> 3 * MiB))
    val rows = spark.read
      .format("kinesis")
      .options(source(stream, "endPosition" -> s"""{"at_timestamp": "$end"}"""))
      .load()
      .collect()
      .toSeq
    assertExactlyOnce(rows)
  }

  test("with kplAggregation, large records are sent alone and small ones aggregated; all read back as written") {
    val stream = largeStream(shards = 1)
    val tail = (1 to 20).map(i => s"tail-$i" -> 50)
    val records = Records ++ tail
    writeIn(1)(stream, records, "kplAggregation" -> "true")
    // Rows wait at most 100 ms for an aggregate to fill: behind 17 MiB of large records on a busy machine the
    // small ones may be sent in two. Written alone, at once, they share one.
    writeIn(1)(stream, tail.map { case (key, size) => s"$key-alone" -> size }, "kplAggregation" -> "true")
    val rows = spark.read.format("kinesis").options(source(stream)).load().collect().toSeq
    val written = records ++ tail.map { case (key, size) => s"$key-alone" -> size }
    assertExactlyOnce(rows, written)
    val kinesisRecord = rows.map(r => r.getAs[String]("partitionKey") -> r.getAs[String]("sequenceNumber")).toMap
    val large = Records.collect { case (key, size) if size > 1024 * 1024 => kinesisRecord(key) }
    assert(large.distinct.size == large.size, "each large record was a Kinesis record of its own")
    assert(rows.count(r => large.contains(r.getAs[String]("sequenceNumber"))) == large.size, "alone in it")
    val tails = tail.map { case (key, _) => kinesisRecord(key) }.distinct
    assert(tails.size < tail.size, s"the small records behind the large ones were aggregated: ${tails.size} records")
    val alone = tail.map { case (key, _) => kinesisRecord(s"$key-alone") }.distinct
    assert(alone.size == 1, s"the 20 small records written together shared an aggregate: ${alone.size} records")
  }

  test("a record one byte over its stream's limit is refused with its row and the limit named; nothing is sent") {
    val stream = largeStream(shards = 1)
    val overKey = "over"
    val error = intercept[Exception](write(stream, Seq(overKey -> (10 * MiB - overKey.length + 1))))
    val message = Iterator.iterate[Throwable](error)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString(" / ")
    assert(message.contains("KINESIS_BAD_RECORD"), message)
    assert(message.contains("its data and partitionKey take 10485761 bytes"), message)
    assert(message.contains(s"stream '$stream' takes at most 10485760 bytes (10 MiB) per record"), message)
    assert(message.contains("partitionKey 'over'"), message)
    assert(spark.read.format("kinesis").options(source(stream)).load().count() == 0)
  }

  test("a stream at the default 1 MiB refuses a 2 MiB record naming its MaxRecordSizeInKiB, and takes it once raised") {
    val stream = largeStream(shards = 1, maxRecordKiB = 1024)
    val record = Seq("raised" -> 2 * MiB)
    val error = intercept[Exception](write(stream, record))
    val message = Iterator.iterate[Throwable](error)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString(" / ")
    assert(message.contains("takes at most 1048576 bytes per record (its MaxRecordSizeInKiB is 1024)"), message)
    val client = kinesis.sdkClient()
    try
      client.updateMaxRecordSize(
        UpdateMaxRecordSizeRequest.builder().streamARN(kinesis.stream(stream).arn).maxRecordSizeInKiB(10240).build())
    finally client.close()
    write(stream, record)
    val rows = spark.read.format("kinesis").options(source(stream)).load().collect().toSeq
    assert(seen(rows).map(r => (r._1, r._2)) == Seq("raised" -> 2 * MiB))
  }
}
