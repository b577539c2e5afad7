// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.atomic.AtomicInteger

import io.github.sparkkinesis.client.{ClientUse, KinesisApiException, PutRecord, PutResult, SharedKinesisApis}
import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}
import io.github.sparkkinesis.testing.{DelegatingKinesisApi, SqlUiMetrics}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.scalatest.funsuite.AnyFunSuite

/** Writes with the sink to a real Kinesis API (kinesis-local by default) and reads back with the source. */
class SinkIntegrationSuite extends AnyFunSuite with SourceIntegration {

  /** What a row written to Kinesis comes back as: its partition key and data. */
  private case class Written(partitionKey: String, data: String)

  private def rowsToWrite(n: Int, prefix: String): Seq[Written] =
    (1 to n).map(i => Written(s"key-${i % 23}", s"$prefix-$i"))

  private def frame(rows: Seq[Written]): DataFrame = {
    val session: SparkSession = spark
    import session.implicits._
    rows.map(w => (w.partitionKey, w.data)).toDF("partitionKey", "data").repartition(3)
  }

  /** Everything in the stream, read with the source under Trigger.AvailableNow. */
  private def readBack(stream: String, options: (String, String)*): Seq[Row] = {
    val collector = new BatchCollector
    collector.runAvailableNow(read(stream)(("initialPosition" -> "trim_horizon") +: options: _*), newCheckpoint())
    collector.rows
  }

  private def written(rows: Seq[Row]): Seq[Written] =
    rows.map(r => Written(r.getAs[String]("partitionKey"), new String(r.getAs[Array[Byte]]("data"), UTF_8)))

  test("df.write appends rows to a stream; the source reads back exactly those rows", Integration) {
    val stream = newStream(shards = 2)
    val rows = rowsToWrite(1500, "batch")
    frame(rows).write.format("kinesis").options(sinkOptions(Some(stream))).mode("append").save()
    val ui = SqlUiMetrics.lastWrite(spark)
    assert(ui.get("recordsWritten").contains(1500L), ui)
    assert(ui.get("bytesWritten").contains(rows.map(_.data.length.toLong).sum), ui)
    assert(ui.get("throttledRequests").contains(0L), ui)
    val back = readBack(stream)
    assert(written(back).sortBy(_.data) == rows.sortBy(_.data))
    // The partition keys spread the rows over both shards.
    assert(back.groupBy(_.getAs[String]("shardId")).size == 2)
  }

  test("df.write takes the default mode and append, and refuses overwrite and ignore saying why", Integration) {
    val stream = newStream(shards = 1)
    frame(rowsToWrite(3, "x")).write.format("kinesis").options(sinkOptions(Some(stream))).save()
    frame(rowsToWrite(2, "y")).write.format("kinesis").options(sinkOptions(Some(stream))).mode("append").save()
    Seq("overwrite" -> "cannot be emptied", "ignore" -> "always exists").foreach { case (mode, why) =>
      val e = intercept[KinesisIllegalArgumentException] {
        frame(rowsToWrite(1, "z")).write.format("kinesis").options(sinkOptions(Some(stream))).mode(mode).save()
      }
      assert(e.getCondition == "KINESIS_SAVE_MODE_UNSUPPORTED" && e.getMessage.contains(why), e.getMessage)
    }
    assert(readBack(stream).size == 5)
  }

  test("a streaming query writes every row; the progress reports what the sink wrote", Integration) {
    val stream = newStream(shards = 2)
    val (input, query) = streamingWrite(sinkOptions(Some(stream)))
    val rows = rowsToWrite(900, "streamed")
    rows.grouped(300).foreach { group =>
      input.addData(group.map(w => (w.partitionKey, w.data)))
      query.processAllAvailable()
    }
    val sinkMetrics = query.lastProgress.sink.metrics
    query.stop()
    assert(sinkMetrics.get("recordsWritten") == "900", sinkMetrics)
    assert(sinkMetrics.get("kinesisRecordsWritten") == "900", sinkMetrics)
    assert(sinkMetrics.get("bytesWritten") == rows.map(_.data.length).sum.toString, sinkMetrics)
    assert(written(readBack(stream)).sortBy(_.data) == rows.sortBy(_.data))
  }

  test("throttled requests and turned-down records are sent again: every row arrives once", Integration) {
    val stream = newStream(shards = 1)
    val original = SharedKinesisApis.get(awsConfig, ClientUse.Writing)
    val calls = new AtomicInteger()
    SharedKinesisApis.replace(awsConfig, ClientUse.Writing) { real =>
      new DelegatingKinesisApi(real) {
        // Of every three requests: the first is throttled whole, the second has every other record turned
        // down (those are not written), the third goes through.
        override def putRecords(stream: String, records: Seq[PutRecord]): Seq[PutResult] =
          calls.incrementAndGet() % 3 match {
            case 1 => throw new KinesisApiException.Throttled("Rate exceeded for stream (injected)", null)
            case 2 =>
              val (sent, turnedDown) = records.indices.partition(_ % 2 == 0)
              val results = sent.zip(real.putRecords(stream, sent.map(records))).toMap
              val refused = PutResult(None, None, Some("ProvisionedThroughputExceededException"))
              records.indices.map(i => results.getOrElse(i, refused))
            case _ => real.putRecords(stream, records)
          }
      }
    }
    try {
      val (input, query) = streamingWrite(sinkOptions(Some(stream), "maxInFlightRequests" -> "2"))
      val rows = rowsToWrite(1200, "throttled")
      input.addData(rows.map(w => (w.partitionKey, w.data)))
      query.processAllAvailable()
      val sinkMetrics = query.lastProgress.sink.metrics
      query.stop()
      assert(sinkMetrics.get("recordsWritten") == "1200", sinkMetrics)
      assert(sinkMetrics.get("throttledRequests").toLong > 0, sinkMetrics)
      assert(sinkMetrics.get("recordsRetried").toLong > 0, sinkMetrics)
      assert(written(readBack(stream)).sortBy(_.data) == rows.sortBy(_.data))
    } finally SharedKinesisApis.replace(awsConfig, ClientUse.Writing)(_ => original)
  }

  test("a stream whose maximum record size is raised takes records over 1 MiB and gives them back", Integration) {
    val stream = newStream(shards = 1)
    admin.updateMaxRecordSize(stream, 10240)
    val rows =
      Seq(Written("large-a", "a" * (3 * 1024 * 1024)), Written("small", "s"), Written("large-b", "b" * 1500000))
    frame(rows).write.format("kinesis").options(sinkOptions(Some(stream))).mode("append").save()
    assert(written(readBack(stream)).sortBy(_.partitionKey) == rows.sortBy(_.partitionKey))
  }

  test("with kplAggregation the sink writes aggregates the source reads back as the same rows", Integration) {
    val stream = newStream(shards = 2)
    val rows = rowsToWrite(2000, "aggregated")
    frame(rows).write
      .format("kinesis")
      .options(sinkOptions(Some(stream), "kplAggregation" -> "true", "kplAggregationMaxSize" -> "8kb"))
      .mode("append")
      .save()
    val back = readBack(stream)
    assert(written(back).sortBy(_.data) == rows.sortBy(_.data))
    val kinesisRecords = back.map(r => (r.getAs[String]("shardId"), r.getAs[String]("sequenceNumber"))).distinct
    assert(kinesisRecords.size < rows.size / 10, s"${kinesisRecords.size} Kinesis records for ${rows.size} rows")
    // Each row landed in the shard its partition key hashes to, as if it had been written alone.
    val shards = admin.listShards(stream, 100)
    back.foreach { r =>
      val key = io.github.sparkkinesis.sink.ShardMap.hashKeyOf(r.getAs[String]("partitionKey"), None)
      val shard = shards.find(s => s.hashKeyRange._1 <= key && key <= s.hashKeyRange._2).get
      assert(r.getAs[String]("shardId") == shard.shardId)
    }
  }

  test("a restart that falls inside an aggregated record resumes after the last row read", Integration) {
    val stream = newStream(shards = 1)
    val plain = (1 to 5).map(i => s"plain-$i")
    put(stream, plain.take(2))
    val aggregated = (1 to 40).map(i => s"user-$i")
    aggregated.grouped(20).foreach { group =>
      val data = AggregatedRecords.encode(group.map(v => UserRecord(partitionKeyOf(v), None, v.getBytes(UTF_8))))
      assert(admin.putRecords(stream, Seq(PutRecord(partitionKeyOf(group.head), data))).forall(_.succeeded))
    }
    put(stream, plain.drop(2))
    val all = plain.take(2) ++ aggregated ++ plain.drop(2)
    val checkpoint = newCheckpoint()
    val options = Seq("initialPosition" -> "trim_horizon", "maxRecordsPerTrigger" -> "7")
    val first = new BatchCollector
    runUntil(first, first.start(read(stream)(options: _*), checkpoint), 14)
    val offsets = new java.io.File(checkpoint, "offsets").listFiles().filter(_.getName.forall(_.isDigit))
    val logged = offsets.map(f => new String(java.nio.file.Files.readAllBytes(f.toPath), UTF_8))
    assert(logged.exists(_.contains("\"sub\":")), "a batch ended inside an aggregate")
    val second = new BatchCollector
    val query = second.start(read(stream)(options: _*), checkpoint)
    def delivered = first.batches ++ second.batches
    eventually("every row", query = Some(query))(delivered.values.map(_.size).sum >= all.size)
    query.stop()
    val data = delivered.toSeq.sortBy(_._1).flatMap(_._2).map(r => new String(r.getAs[Array[Byte]]("data"), UTF_8))
    assert(data == all, "every row once, in order")
    val keys = delivered.values.flatten.map(r =>
      new String(r.getAs[Array[Byte]]("data"), UTF_8) -> r.getAs[String]("partitionKey"))
    assert(keys.forall { case (v, key) => key == partitionKeyOf(v) }, "each user record has its own partition key")
  }

  test("bad input fails with the column or the row named, and nothing of a bad row is written", Integration) {
    val stream = newStream(shards = 1)
    val session: SparkSession = spark
    import session.implicits._
    val extra = intercept[IllegalArgumentException] {
      Seq(("k", "d", 1))
        .toDF("partitionKey", "data", "id")
        .write
        .format("kinesis")
        .options(sinkOptions(Some(stream)))
        .mode("append")
        .save()
    }
    assert(
      extra.getMessage.contains("[KINESIS_SINK_COLUMNS]") && extra.getMessage.contains("column id"),
      extra.getMessage)
    val cases = Seq(
      Seq[(String, String)](("", "empty key")) -> "its partitionKey is empty",
      Seq[(String, String)]((null, "null key")) -> "its partitionKey is null",
      Seq[(String, String)](("k" * 257, "long key")) -> "257 characters",
      Seq[(String, String)](
        ("k", "x" * (1024 * 1024))) -> "takes at most 1048576 bytes per record (its MaxRecordSizeInKiB is 1024)",
      Seq[(String, String)](("k", null)) -> "its data is null"
    )
    cases.foreach { case (rows, problem) =>
      // Spark 4 reports a task's SparkThrowable as it is; Spark 3.5 inside a SparkException.
      val e = intercept[Exception] {
        rows
          .toDF("partitionKey", "data")
          .coalesce(1)
          .write
          .format("kinesis")
          .options(sinkOptions(Some(stream)))
          .mode("append")
          .save()
      }
      val messages = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString("\n")
      assert(messages.contains("[KINESIS_BAD_RECORD]") && messages.contains(problem), messages)
    }
    assert(readBack(stream).isEmpty, "no bad row was written")
  }
}
