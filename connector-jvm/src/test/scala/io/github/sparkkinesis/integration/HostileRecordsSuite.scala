// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.client.{KinesisApi, PutRecord}
import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.apache.spark.sql.streaming.StreamingQuery
import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

/**
 * A stream holding what a reader meets in production besides well-formed records, on the synthetic Kinesis:
 * records that start like KPL aggregates and are not (a wrong digest, a cut or broken body with a right
 * digest, the magic bytes alone), a real aggregate, empty data, keys at Kinesis' 256-character limit in
 * multi-byte UTF-8, and plain records after each. Read by a streaming query (polling and enhanced fan-out),
 * an AvailableNow run and a batch read, every record arrives as rows: a real aggregate as its user records,
 * anything else whole, the false aggregates counted in `numCorruptAggregatedRecords`; no query fails, and
 * nothing after a bad record is lost.
 */
class HostileRecordsSuite extends AnyFunSuite with SparkStreamingSuite {

  private lazy val kinesis = SyntheticKinesis.start(threads = 4)
  private lazy val writer: KinesisApi = kinesis.connectorClient()

  override protected def afterAll(): Unit =
    try super.afterAll()
    finally {
      writer.close()
      kinesis.close()
    }

  private def framed(body: Array[Byte]): Array[Byte] =
    AggregatedRecords.Magic ++ body ++ MessageDigest.getInstance("MD5").digest(body)

  private val aggregate =
    AggregatedRecords.encode(Seq(UserRecord("u1", None, "user-1".getBytes(UTF_8)), UserRecord("u2", None, Array())))
  private val body = aggregate.slice(AggregatedRecords.Magic.length, aggregate.length - 16)

  /** Key, data, and what it reads as: user records' (key, data) pairs, and whether it is a corrupt aggregate. */
  private val written: Seq[(String, Array[Byte], Seq[(String, String)], Boolean)] = {
    def plain(key: String, data: Array[Byte]) = (key, data, Seq(key -> new String(data, UTF_8)), false)
    def corrupt(key: String, data: Array[Byte]) = (key, data, Seq(key -> new String(data, UTF_8)), true)
    Seq(
      plain("first", "before the bad ones".getBytes(UTF_8)),
      corrupt("digest", aggregate.updated(aggregate.length - 1, (aggregate.last ^ 1).toByte)),
      plain("after-digest", "after a wrong digest".getBytes(UTF_8)),
      corrupt("cut", framed(body.dropRight(3))),
      corrupt("broken", framed(body.updated(1, 0x7f.toByte))),
      plain("magic", AggregatedRecords.Magic),
      corrupt("magic-and-more", AggregatedRecords.Magic ++ Array.fill[Byte](20)(1)),
      ("real", aggregate, Seq("u1" -> "user-1", "u2" -> ""), false),
      plain("empty", Array.emptyByteArray),
      plain("é" * 256, "a key of 256 two-byte characters".getBytes(UTF_8)),
      plain("\uD83D\uDD11" * 128, "a key of 128 four-byte characters".getBytes(UTF_8)),
      plain("last", "after all of them".getBytes(UTF_8))
    )
  }

  private val expectedRows: Seq[(String, String)] = written.flatMap(_._3)
  private val expectedCorrupt = written.count(_._4)

  private def hostileStream(): String = {
    val name = s"hostile-${java.util.UUID.randomUUID().toString.take(8)}"
    kinesis.create(StreamSpec(name, shards = 1))
    val results = writer.putRecords(name, written.map { case (key, data, _, _) => PutRecord(key, data) })
    assert(results.forall(_.succeeded))
    name
  }

  private def options(stream: String, more: (String, String)*): Map[String, String] =
    kinesis.connectorOptions ++ Map("streamName" -> stream, "initialPosition" -> "trim_horizon") ++ more

  private def rowsOf(rows: Seq[Row]): Seq[(String, String)] =
    rows.map(r => r.getAs[String]("partitionKey") -> new String(r.getAs[Array[Byte]]("data"), UTF_8))

  private def corruptCounted(query: StreamingQuery): Long =
    query.recentProgress.flatMap(_.sources).map(_.metrics.getOrDefault("numCorruptAggregatedRecords", "0").toLong).sum

  Seq("polling", "efo").foreach { mode =>
    test(s"a streaming query ($mode) reads every hostile record as rows, counts the false aggregates, goes on") {
      val stream = hostileStream()
      val collector = new BatchCollector
      val query = collector.start(
        spark.readStream.format("kinesis").options(options(stream, "consumerMode" -> mode)).load(),
        newCheckpoint())
      try {
        eventually(s"${expectedRows.size} rows", query = Some(query))(collector.rows.size >= expectedRows.size)
        query.processAllAvailable()
        assert(rowsOf(collector.rows) == expectedRows)
        assert(query.exception.isEmpty && query.isActive)
        assert(corruptCounted(query) == expectedCorrupt)
      } finally query.stop()
    }
  }

  test("an AvailableNow run and a batch read read every hostile record as rows, and end") {
    val stream = hostileStream()
    val collector = new BatchCollector
    val query =
      collector.runAvailableNow(spark.readStream.format("kinesis").options(options(stream)).load(), newCheckpoint())
    assert(rowsOf(collector.rows) == expectedRows)
    assert(corruptCounted(query) == expectedCorrupt)
    assert(rowsOf(spark.read.format("kinesis").options(options(stream)).load().collect().toSeq) == expectedRows)
  }
}
