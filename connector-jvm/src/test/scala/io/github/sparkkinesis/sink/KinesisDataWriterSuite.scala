// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.config.{KinesisSinkConfig, NullDataPolicy}
import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}
import io.github.sparkkinesis.testing.{FakeKinesisApi, ManualClock, StreamFixture}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class KinesisDataWriterSuite extends AnyFunSuite {

  private class Fixture(nullData: NullDataPolicy = NullDataPolicy.Fail, aggregate: Option[Long] = None) {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val shards: Map[String, String] = Seq("s", "other").map(s => s -> api.createStream(s, 1).head).toMap
    val config = KinesisSinkConfig(Some("s"), StreamFixture.Aws, nullData, 2, 60000, aggregate, Some(600000))
    // (partitionKey, data as string, stream)
    val columns = SinkColumns(data = 1, dataIsString = true, partitionKey = 0, explicitHashKey = None, stream = Some(2))
    val writer = new KinesisDataWriter(config, columns, api, clock, "partition 0 (task 1)")

    def row(key: String, data: String, stream: String = null): InternalRow =
      InternalRow(
        UTF8String.fromString(key),
        Option(data).map(UTF8String.fromString).orNull,
        Option(stream).map(UTF8String.fromString).orNull)

    def written(stream: String): Seq[(String, String)] =
      api.records(stream, shards(stream)).flatMap { r =>
        AggregatedRecords.decode(r.data) match {
          case AggregatedRecords.Aggregate(users) => users.map(u => (u.partitionKey, new String(u.data, UTF_8)))
          case _ => Seq((r.partitionKey, new String(r.data, UTF_8)))
        }
      }

    def metric(name: String): Long = writer.currentMetricsValues().find(_.name() == name).get.value()
  }

  test("rows go to the streamName stream, or the one in their stream column; commit reports the counts") {
    val f = new Fixture
    f.writer.write(f.row("k1", "one"))
    f.writer.write(f.row("k2", "two", stream = "other"))
    f.writer.write(f.row("k3", "three"))
    val KinesisWriterCommit(counts) = f.writer.commit()
    f.writer.close()
    assert(f.written("s") == Seq("k1" -> "one", "k3" -> "three"))
    assert(f.written("other") == Seq("k2" -> "two"))
    assert(counts == WriteCounts(rows = 3, kinesisRecords = 3, bytes = 11, retried = 0, throttled = 0, skipped = 0))
    assert(f.metric(KinesisWriteMetrics.Rows) == 3)
  }

  test("rows that wait for a full request are sent soon without a commit, as a real-time task needs") {
    val f = new Fixture
    f.writer.write(f.row("k1", "one"))
    f.writer.write(f.row("k2", "two"))
    val deadline = System.nanoTime() + 5000L * 1000000
    while (f.written("s").size < 2 && System.nanoTime() < deadline) Thread.sleep(10)
    assert(f.written("s") == Seq("k1" -> "one", "k2" -> "two"), "sent before any commit")
    f.writer.write(f.row("k3", "three"))
    val KinesisWriterCommit(counts) = f.writer.commit()
    f.writer.close()
    assert(f.written("s").map(_._1) == Seq("k1", "k2", "k3"), "each row once")
    assert(counts.rows == 3 && counts.kinesisRecords == 3)
  }

  test("a row with null data fails the task by default, naming the row, and nothing of it is sent") {
    val f = new Fixture
    f.writer.write(f.row("k1", "one"))
    val e = intercept[IllegalArgumentException](f.writer.write(f.row("k2", null)))
    assert(e.getMessage.startsWith("[KINESIS_BAD_RECORD]"), e.getMessage)
    assert(e.getMessage.contains("row 2 of partition 0 (task 1), partitionKey 'k2'"), e.getMessage)
    assert(e.getMessage.contains("nullData"), e.getMessage)
    f.writer.abort()
    f.writer.close()
    assert(!f.written("s").exists(_._1 == "k2"))
  }

  test("with nullData skip, rows with null data are skipped and counted") {
    val f = new Fixture(nullData = NullDataPolicy.Skip)
    Seq(f.row("k1", "one"), f.row("k2", null), f.row("k3", null)).foreach(f.writer.write)
    val KinesisWriterCommit(counts) = f.writer.commit()
    f.writer.close()
    assert(f.written("s") == Seq("k1" -> "one"))
    assert(counts.skipped == 2 && counts.rows == 1)
  }

  test("a stream column that names no valid stream fails before the row is sent") {
    val f = new Fixture
    val e = intercept[IllegalArgumentException](f.writer.write(f.row("k", "d", stream = "no/such")))
    assert(e.getMessage.contains("its stream 'no/such' is not a stream name"), e.getMessage)
    f.writer.close()
  }

  test("with kplAggregation, rows for one shard go as one aggregated record, counted as rows and records") {
    val f = new Fixture(aggregate = Some(50 * 1024))
    (1 to 50).foreach(i => f.writer.write(f.row(s"k$i", s"v$i")))
    val KinesisWriterCommit(counts) = f.writer.commit()
    f.writer.close()
    assert(f.written("s") == (1 to 50).map(i => s"k$i" -> s"v$i"))
    assert(f.api.records("s", f.shards("s")).size == 1)
    assert(counts.rows == 50 && counts.kinesisRecords == 1)
    assert(
      AggregatedRecords.decode(f.api.records("s", f.shards("s")).head.data) ==
        AggregatedRecords.Aggregate((1 to 50).map(i => UserRecord(s"k$i", None, s"v$i".getBytes(UTF_8)))))
  }
}
