// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.time.Instant

import io.github.sparkkinesis.client.ShardInfo
import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

/**
 * Batch reads against the emulator (`spark.read.format("kinesis")`): whole streams, time windows, ranges
 * bounded by a streaming query's offsets, ranges across a split, KPL aggregates, empty streams, the SQL
 * view, and the options a batch read refuses at `.load()`.
 */
class BatchReadIntegrationSuite extends AnyFunSuite with SourceIntegration {

  private def at(instant: Instant): String = s"""{"at_timestamp": "$instant"}"""

  /** An instant between the records written before and after it: the emulator stamps arrivals in ms. */
  private def pause(): Instant = {
    Thread.sleep(1100)
    val instant = Instant.now()
    Thread.sleep(1100)
    instant
  }

  test("a batch read of a whole stream returns every record once, as a streaming read's rows", Integration) {
    val stream = newStream(shards = 3)
    val values = (1 to 300).map(i => s"v$i")
    val written = expected(stream, values, put(stream, values))
    val df = batchRead(stream)()
    assert(df.schema == read(stream)().schema)
    assert(df.rdd.getNumPartitions == 2, "as many tasks as cores (local[2]), the shards dealt to them")
    assert(seen(df.collect().toSeq).sortBy(_.seq) == written.sortBy(_.seq))
  }

  test("at_timestamp on both sides reads the records that arrived in between", Integration) {
    val stream = newStream(shards = 2)
    put(stream, (1 to 20).map(i => s"before$i"))
    val from = pause()
    val inside = (1 to 30).map(i => s"inside$i")
    val written = expected(stream, inside, put(stream, inside))
    val until = pause()
    put(stream, (1 to 20).map(i => s"after$i"))
    val window = batchRead(stream)("initialPosition" -> at(from), "endPosition" -> at(until))
    assert(seen(window.collect().toSeq).sortBy(_.seq) == written.sortBy(_.seq))
    val sinceFrom = batchRead(stream)("initialPosition" -> at(from)).collect()
    assert(sinceFrom.length == 50, "without an end: up to what had arrived when the read was planned")
  }

  test(
    "a streaming query's offset bounds a batch read: up to it is what the query read, after it the rest",
    Integration) {
    val stream = newStream(shards = 2)
    val first = (1 to 40).map(i => s"first$i")
    put(stream, first)
    val collector = new BatchCollector
    val query = collector.start(read(stream)("initialPosition" -> "trim_horizon"), newCheckpoint())
    val streamed = runUntil(collector, query, first.size)
    val offset = query.recentProgress.filter(_.numInputRows > 0).last.sources.head.endOffset
    val second = (1 to 25).map(i => s"second$i")
    val later = expected(stream, second, put(stream, second))

    val upTo = seen(batchRead(stream)("endPosition" -> offset).collect().toSeq)
    assert(upTo.sortBy(_.seq) == streamed.sortBy(_.seq))
    val after = seen(batchRead(stream)("initialPosition" -> offset).collect().toSeq)
    assert(after.sortBy(_.seq) == later.sortBy(_.seq))
    assert(batchRead(stream)("initialPosition" -> offset, "endPosition" -> offset).count() == 0)
  }

  test("a range across a split: the parent's records, then its children's, each key in order", Integration) {
    val stream = newStream(shards = 1)
    val before = (1 to 60).map(i => s"r$i")
    val written = expected(stream, before, put(stream, before))
    val parent = admin.listShards(stream, 100).head
    admin.splitShard(stream, parent.shardId, middleOf(parent))
    eventually("the split") { admin.listShards(stream, 100).count(!_.isClosed) == 2 }
    val after = (61 to 120).map(i => s"r$i")
    val all = written ++ expected(stream, after, put(stream, after))
    val rows = seen(batchRead(stream)().collect().toSeq)
    assert(rows.sortBy(_.seq) == all.sortBy(_.seq))
    assert(rows.take(60).map(_.shardId).distinct == Seq(parent.shardId), "the parent's range is read first")
    rows.groupBy(_.partitionKey).foreach { case (key, ofKey) =>
      val order = ofKey.map(_.data.stripPrefix("r").toInt)
      assert(order == order.sorted, s"$key out of order: ${order.mkString(",")}")
    }
  }

  test("KPL aggregates written by the sink are read as their user records", Integration) {
    val stream = newStream(shards = 2)
    val session = spark
    import session.implicits._
    val values = (1 to 500).map(i => (s"k${i % 7}", s"u$i"))
    values
      .toDF("partitionKey", "data")
      .write
      .format("kinesis")
      .options(sinkOptions(Some(stream), "kplAggregation" -> "true", "kplAggregationMaxSize" -> "8kb"))
      .save()
    val rows = seen(batchRead(stream)().collect().toSeq)
    assert(rows.map(r => (r.partitionKey, r.data)).sortBy(_._2) == values.sortBy(_._2))
    assert(rows.map(_.seq).distinct.size < values.size, "several user records a Kinesis record")
  }

  test("an empty stream reads no rows, and an empty range makes no task", Integration) {
    val stream = newStream(shards = 2)
    assert(batchRead(stream)().collect().isEmpty)
    put(stream, Seq("a", "b"))
    val latest = batchRead(stream)("initialPosition" -> "latest")
    assert(latest.rdd.getNumPartitions == 0)
    assert(latest.count() == 0)
  }

  test("SQL: a temporary view USING kinesis reads the same way", Integration) {
    val stream = newStream(shards = 2)
    val values = (1 to 30).map(i => s"sql$i")
    put(stream, values)
    val options = (Map("streamName" -> stream, "endpoint" -> endpoint, "region" -> region) ++ credentialOptions)
      .map { case (k, v) => s"$k '$v'" }
      .mkString(", ")
    spark.sql(s"CREATE OR REPLACE TEMPORARY VIEW kinesis_batch USING kinesis OPTIONS ($options)")
    val data = spark.sql("SELECT CAST(data AS STRING) AS value FROM kinesis_batch").collect().map(_.getString(0))
    assert(data.sorted.toSeq == values.sorted)
  }

  test("options a batch read cannot take are refused at .load(), naming the option", Integration) {
    val stream = newStream(shards = 1)
    def refused(load: => DataFrame): String = intercept[KinesisIllegalArgumentException](load).getMessage
    val trigger = refused(batchRead(stream)("maxRecordsPerTrigger" -> "10"))
    assert(trigger.contains("KINESIS_OPTION_NOT_IN_BATCH_READ") && trigger.contains("maxRecordsPerTrigger"), trigger)
    val efo = refused(batchRead(stream)("consumerMode" -> "efo"))
    assert(efo.contains("KINESIS_OPTION_NOT_IN_BATCH_READ") && efo.contains("consumerMode"), efo)
    val now = Instant.now()
    val backwards = refused(batchRead(stream)("initialPosition" -> at(now), "endPosition" -> at(now.minusSeconds(60))))
    assert(backwards.contains("KINESIS_OPTION_INVALID") && backwards.contains("endPosition"), backwards)
    val unreadable = refused(batchRead(stream)("endPosition" -> "yesterday"))
    assert(unreadable.contains("KINESIS_OPTION_INVALID") && unreadable.contains("endPosition"), unreadable)
    val noEnd = refused(batchRead(stream)("endPosition" -> "trim_horizon"))
    assert(noEnd.contains("endPosition"), noEnd)
    val streaming = refused(read(stream)("endPosition" -> "latest"))
    assert(streaming.contains("KINESIS_OPTION_BATCH_READ_ONLY") && streaming.contains("endPosition"), streaming)
    val missing = intercept[KinesisIllegalArgumentException](
      spark.read.format("kinesis").option("endpoint", endpoint).option("region", region).load()).getMessage
    assert(missing.contains("KINESIS_OPTION_MISSING") && missing.contains("streamName"), missing)
  }

  private def middleOf(shard: ShardInfo): String = ((shard.hashKeyRange._1 + shard.hashKeyRange._2) / 2).toString
}
