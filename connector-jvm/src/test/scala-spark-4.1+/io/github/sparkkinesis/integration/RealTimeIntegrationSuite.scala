// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.{IteratorStart, PutRecord}
import io.github.sparkkinesis.errors.KinesisThrowable
import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardPosition}
import io.github.sparkkinesis.offsets.ShardPosition.{After, TrimHorizon}
import io.github.sparkkinesis.testing.RecordedKinesisCalls
import org.apache.spark.sql.{ForeachWriter, Row}
import org.apache.spark.sql.streaming.{StreamingQueryException, Trigger}
import org.scalatest.funsuite.AnyFunSuite

/**
 * Real-time mode (`Trigger.RealTime`, Spark 4.1 and later): records reach the sink while the long batch runs,
 * and batches end where their tasks left the shards, so a restart goes on from there.
 */
class RealTimeIntegrationSuite extends AnyFunSuite with SourceIntegration {
  import RealTimeIntegrationSuite._

  // Spark's shortest real-time batch is 5 s unless told otherwise: the tests' batches are shorter.
  override protected def sparkSettings: Map[String, String] =
    Map("spark.sql.streaming.realTimeMode.minBatchDuration" -> "1000")

  // A task per shard for the whole batch: a core for each shard, after a split too.
  override protected def sparkMaster: String = "local[4]"

  private def start(stream: String, sink: String, checkpoint: String, batch: String, options: (String, String)*) =
    startWriting(stream, new CollectingWriter(sink), checkpoint, batch, options: _*)

  private def startWriting(
      stream: String,
      writer: CollectingWriter,
      checkpoint: String,
      batch: String,
      options: (String, String)*) =
    read(stream)(("initialPosition" -> "trim_horizon") +: options: _*).writeStream
      .outputMode("update")
      .option("checkpointLocation", checkpoint)
      .trigger(Trigger.RealTime(batch))
      .foreach(writer)
      .start()

  test("records reach the sink while the batch runs, and a restarted query goes on from the last batch", Integration) {
    val stream = newStream(shards = 2)
    val sink = java.util.UUID.randomUUID().toString
    val checkpoint = newCheckpoint()
    val before = (1 to 30).map(i => f"before-$i%03d")
    val beforeResults = put(stream, before)
    // A batch of a minute: whatever arrives is seen long before it ends.
    val first = start(stream, sink, checkpoint, "60 seconds")
    eventually("the records written before the start, during the first batch", 30, Some(first)) {
      delivered(sink).size >= before.size
    }
    val during = (1 to 20).map(i => f"during-$i%03d")
    val duringResults = put(stream, during)
    eventually("the records written while the batch runs", 30, Some(first))(delivered(sink).size >= 50)
    assert(first.recentProgress.isEmpty, "all of it within the first batch, which has not ended")
    first.stop() // mid-batch: Spark writes no end for it, and runs it again from its start

    val second = start(stream, sink, checkpoint, "2 seconds")
    eventually("two batches after the restart", 60, Some(second))(second.recentProgress.length >= 2)
    val after = (1 to 20).map(i => f"after-$i%03d")
    val afterResults = put(stream, after)
    eventually("the records written after the restart", 30, Some(second)) {
      delivered(sink).size >= 70 && second.recentProgress.map(_.numInputRows).sum >= 70
    }
    second.stop()
    // Each batch's progress shows the source's metrics: the lag as the batch's tasks left each shard.
    val metrics = second.recentProgress.last.sources.head.metrics
    assert(metrics.get("numTotalShards") == "2", metrics)
    assert(Seq("avgMsBehindLatest", "maxMsBehindLatest", "minMsBehindLatest").forall(metrics.containsKey), metrics)
    assert(!metrics.containsKey("totalPrefetchedBytes"), "nothing is prefetched in real-time mode: no such metric")
    assert(metrics.get("numStreams") == "1" && metrics.get("numRegisteredConsumers") == "0", metrics)
    assert(metrics.get("numAwsRateLimitErrors").toLong >= 0, metrics)
    val expectedRows = expected(stream, before ++ during ++ after, beforeResults ++ duringResults ++ afterResults)
    // The batch cut short is read again whole; each batch's rows, as last delivered, are every record once.
    assert(delivered(sink).sortBy(_.seq) == expectedRows.sortBy(_.seq))
    expectedRows.groupBy(_.shardId).foreach { case (shard, rows) =>
      assert(delivered(sink).filter(_.shardId == shard).map(_.seq) == rows.map(_.seq), s"$shard in order")
    }
  }

  test(
    "a batch that ends inside a KPL aggregate: its end is logged there; the next batch and a restart go on from it",
    Integration) {
    val stream = newStream(shards = 1)
    val sink = java.util.UUID.randomUUID().toString
    val checkpoint = newCheckpoint()
    val users = (1 to 5000).map(i => f"user-$i%04d")
    put(stream, Seq("plain-1", "plain-2"))
    val encoded = AggregatedRecords.encode(users.map(v => UserRecord(partitionKeyOf(v), None, v.getBytes(UTF_8))))
    val Seq(aggregate) = admin.putRecords(stream, Seq(PutRecord("aggregate", encoded)))
    assert(aggregate.succeeded, aggregate)
    put(stream, Seq("plain-3"))
    val plainAt = admin.listShards(stream, 100).flatMap { shard =>
      val iterator = admin.getShardIterator(stream, shard.shardId, IteratorStart.TrimHorizon)
      admin.getRecords(stream, shard.shardId, iterator, 100).records
    }
    val aggregateSeq = aggregate.sequenceNumber.get
    // Each record, in order, with the position a batch logs if it ends just after it.
    val positions: Seq[(String, ShardPosition)] = plainAt.flatMap { r =>
      if (r.sequenceNumber == aggregateSeq) users.zipWithIndex.map { case (v, i) => v -> After(aggregateSeq, Some(i)) }
      else Seq(new String(r.data, UTF_8) -> After(r.sequenceNumber))
    }
    assert(positions.map(_._1) == Seq("plain-1", "plain-2") ++ users :+ "plain-3")
    // 2 ms a row: the aggregate takes at least 10 s to go through, so the deadline of each 1-second batch
    // passes while its task is inside the aggregate, and Spark stops calling the reader there.
    def startSlow() = startWriting(stream, new CollectingWriter(sink, msPerRow = 2), checkpoint, "1 second")
    def cutInside(batchId: Long) = loggedEnd(checkpoint, batchId) match {
      case After(`aggregateSeq`, Some(sub)) => sub < users.size - 1
      case _ => false
    }
    val first = startSlow()
    eventually("two committed batches that ended inside the aggregate", 60, Some(first)) {
      committed(checkpoint).count(cutInside) >= 2
    }
    first.stop()
    val restartedFrom = committed(checkpoint).max
    assert(
      cutInside(restartedFrom),
      s"the first query's last committed batch, $restartedFrom, ended inside the aggregate")

    val second = startSlow()
    val last = After(plainAt.last.sequenceNumber)
    eventually("every record read in committed batches", 120, Some(second)) {
      committed(checkpoint).lastOption.exists(loggedEnd(checkpoint, _) == last)
    }
    second.stop()
    assert(second.recentProgress.head.batchId == restartedFrom + 1, "the restart went on with the next batch")
    // Each committed batch delivered exactly the records after the previous batch's logged end, up to its own.
    val batches = committed(checkpoint)
    assert(batches == (0L to batches.max), "each batch committed, one after another")
    batches.foldLeft(-1) { (from, n) =>
      val end = loggedEnd(checkpoint, n)
      val to = positions.indexWhere(_._2 == end)
      assert(to >= from && (to >= 0 || end == TrimHorizon), s"batch $n ended at $end, before the last one's end")
      val records = deliveredIn(sink, n).map(_.data)
      assert(records == positions.slice(from + 1, to + 1).map(_._1), s"batch $n: each of its records once, in order")
      to
    }
    assert(delivered(sink).forall(r => r.partitionKey == partitionKeyOf(r.data)), "each user record has its own key")
  }

  /** The batches whose commit Spark wrote to the checkpoint's commit log. */
  private def committed(checkpoint: String): Seq[Long] =
    Option(new File(checkpoint, "commits").listFiles()).toSeq.flatten
      .map(_.getName)
      .filter(name => name.nonEmpty && name.forall(_.isDigit))
      .map(_.toLong)
      .sorted

  /** The end of a one-shard stream's batch `n`, as Spark wrote it to the checkpoint's offset log. */
  private def loggedEnd(checkpoint: String, n: Long): ShardPosition = {
    // The log holds a version line, the batch's metadata and then each source's end offset, one a line.
    val lines = Files.readAllLines(new File(new File(checkpoint, "offsets"), n.toString).toPath, UTF_8).asScala
    val Seq(position) = KinesisSourceOffset.fromJson(lines.last).shards.values.toSeq
    position
  }

  test("more shards than cores: a task reads several, every record once, each shard in order", Integration) {
    // Six shards on four cores: four tasks, of one or two shards, all running for the whole batch.
    val stream = newStream(shards = 6)
    val sink = java.util.UUID.randomUUID().toString
    val values = (1 to 90).map(i => f"many-$i%03d")
    val (first, second) = values.splitAt(60)
    val firstResults = put(stream, first)
    val query = start(stream, sink, newCheckpoint(), "3 seconds")
    eventually("the records written before the start", 60, Some(query))(delivered(sink).size >= first.size)
    val secondResults = put(stream, second)
    eventually("every record, committed", 60, Some(query)) {
      delivered(sink).size >= values.size && query.recentProgress.map(_.numInputRows).sum >= values.size
    }
    query.stop()
    val expectedRows = expected(stream, values, firstResults ++ secondResults)
    assert(expectedRows.map(_.shardId).distinct.size == 6, "records on every shard")
    assert(delivered(sink).sortBy(_.seq) == expectedRows.sortBy(_.seq), "every record once")
    expectedRows.groupBy(_.shardId).foreach { case (shard, rows) =>
      assert(delivered(sink).filter(_.shardId == shard).map(_.seq) == rows.map(_.seq), s"$shard in order")
    }
    assert(partitionsOf(sink) == Set(0L, 1L, 2L, 3L), "a task per core, none waiting for a core")
  }

  test("a shard split during a long batch: its children are read from a later batch, each key in order", Integration) {
    val stream = newStream(shards = 2)
    val sink = java.util.UUID.randomUUID().toString
    val first = (1 to 60).map(i => f"split-$i%03d")
    val firstResults = put(stream, first)
    val query = start(stream, sink, newCheckpoint(), "3 seconds")
    eventually("the records written before the split", 30, Some(query))(delivered(sink).size >= first.size)
    val parent = admin.listShards(stream, 100).filterNot(_.isClosed).head
    admin.splitShard(stream, parent.shardId, ((parent.hashKeyRange._1 + parent.hashKeyRange._2) / 2).toString)
    val second = (61 to 120).map(i => f"split-$i%03d")
    val secondResults = put(stream, second)
    eventually("the records written after the split, committed", 60, Some(query)) {
      delivered(sink).size >= 120 && query.recentProgress.map(_.numInputRows).sum >= 120
    }
    query.stop()
    val rows = delivered(sink)
    assert(rows.sortBy(_.seq) == expected(stream, first ++ second, firstResults ++ secondResults).sortBy(_.seq))
    val children = admin.listShards(stream, 100).filter(_.parents.contains(parent.shardId)).map(_.shardId)
    assert(children.size == 2 && rows.exists(r => children.contains(r.shardId)), "the children were read")
    rows.groupBy(_.partitionKey).foreach { case (key, ofKey) =>
      val order = ofKey.map(_.data.stripPrefix("split-").toInt)
      assert(order == order.sorted, s"records of $key arrived out of order: ${order.mkString(",")}")
    }
  }

  test(
    "under consumerMode efo, records come through the consumer's subscription, which stopping deregisters",
    Integration) {
    val stream = newStream(shards = 2)
    val sink = java.util.UUID.randomUUID().toString
    val options = Seq("consumerMode" -> "efo", "consumerName" -> "real-time", "requireConsumerDeregistration" -> "true")
    val query = start(stream, sink, newCheckpoint(), "4 seconds", options: _*)
    val values = (1 to 20).map(i => f"efo-$i%03d")
    val results = put(stream, values)
    eventually("the records, through the subscription", 60, Some(query)) {
      delivered(sink).size >= values.size && query.recentProgress.map(_.numInputRows).sum >= values.size
    }
    val consumers = admin.listConsumers(admin.describeStream(stream).arn)
    assert(consumers.map(_.name) == Seq("spark-kinesis_real-time"), consumers)
    val metrics = query.recentProgress.last.sources.head.metrics
    assert(metrics.get("numRegisteredConsumers") == "1" && metrics.get("numStreams") == "1", metrics)
    assert(metrics.get("numAwsRateLimitErrors").toLong >= 0, metrics)
    query.stop()
    assert(delivered(sink).sortBy(_.seq) == expected(stream, values, results).sortBy(_.seq))
    // Read through subscriptions, not by polling: both shards are open (no split here), so neither is polled.
    val shards = admin.listShards(stream, 100).map(_.shardId).toSet
    assert(RecordedKinesisCalls.byShard("SubscribeToShard", stream).keySet == shards, "subscribed to each shard")
    assert(RecordedKinesisCalls.count("GetRecords", stream) == 0, "no shard of the stream polled")
    eventually("the consumer deregistered", 30)(admin.listConsumers(admin.describeStream(stream).arn).isEmpty)
  }

  test("Kinesis to Kinesis in real time: each row reaches the sink stream while the batch runs", Integration) {
    val source = newStream(shards = 2)
    val target = newStream(shards = 1)
    // Spark allows only its own sinks in real-time mode unless told not to check.
    spark.conf.set("spark.sql.streaming.realTimeMode.allowlistCheck", "false")
    try {
      val query = read(source)("initialPosition" -> "trim_horizon")
        .selectExpr("partitionKey", "data")
        .writeStream
        .format("kinesis")
        .options(sinkOptions(Some(target)))
        .outputMode("update")
        .option("checkpointLocation", newCheckpoint())
        // Spark 4.3 tracks a real-time query's progress asynchronously by default, for its own sinks only.
        .option("asyncProgressTrackingEnabled", "false")
        .trigger(Trigger.RealTime("60 seconds"))
        .start()
      val values = (1 to 30).map(i => f"relay-$i%03d")
      put(source, values)
      eventually("the rows in the sink stream, during the first batch", 30, Some(query)) {
        writtenTo(target).size >= values.size
      }
      assert(query.recentProgress.isEmpty, "within the first batch, which has not ended")
      query.stop()
      assert(writtenTo(target).sorted == values, "each row once")
    } finally spark.conf.unset("spark.sql.streaming.realTimeMode.allowlistCheck")
  }

  /** The data of every record of a stream, read with the plain API. */
  private def writtenTo(stream: String): Seq[String] =
    admin.listShards(stream, 100).flatMap { shard =>
      val iterator = admin.getShardIterator(stream, shard.shardId, IteratorStart.TrimHorizon)
      admin.getRecords(stream, shard.shardId, iterator, 10000).records.map(r => new String(r.data, UTF_8))
    }

  test("options that mean nothing in real-time mode fail the query at its start, naming the option", Integration) {
    val stream = newStream(shards = 1)
    val query = start(stream, "refused", newCheckpoint(), "2 seconds", "maxRecordsPerTrigger" -> "100")
    val error = intercept[StreamingQueryException](query.awaitTermination(60000))
    val cause = Iterator.iterate[Throwable](error)(_.getCause).takeWhile(_ != null).collectFirst {
      case k: KinesisThrowable => k
    }
    assert(cause.map(_.getCondition).contains("KINESIS_OPTION_NOT_IN_REAL_TIME_MODE"), error)
    assert(error.getMessage.contains("maxRecordsPerTrigger"), error.getMessage)
  }
}

object RealTimeIntegrationSuite {

  /** Rows delivered, by sink, batch (epoch) and partition: a partition written again replaces its rows. */
  private val rows = new ConcurrentHashMap[(String, Long, Long), Vector[Seen]]()

  /** The rows a sink holds of one batch, by partition: each partition's last attempt. */
  def deliveredIn(sink: String, epoch: Long): Seq[Seen] =
    rows.asScala.toSeq
      .collect { case ((`sink`, `epoch`, partition), seen) => partition -> seen }
      .sortBy(_._1)
      .flatMap(_._2)

  /** What a sink holds: per batch and partition, the rows of its last attempt, in batch order. */
  def delivered(sink: String): Seq[Seen] =
    rows.asScala.toSeq
      .collect { case ((`sink`, epoch, partition), seen) => (epoch, partition) -> seen }
      .sortBy(_._1)
      .flatMap(_._2)

  /** The partitions (tasks of a batch) that delivered rows to a sink. */
  def partitionsOf(sink: String): Set[Long] = rows.keySet.asScala.collect { case (`sink`, _, p) => p }.toSet

  /**
   * A `foreach` sink (one Spark allows in real-time mode) that keeps each row as it arrives, taking
   * `msPerRow` over each.
   */
  final class CollectingWriter(sink: String, msPerRow: Long = 0) extends ForeachWriter[Row] {
    private var key: (String, Long, Long) = _

    override def open(partitionId: Long, epochId: Long): Boolean = {
      key = (sink, epochId, partitionId)
      rows.put(key, Vector.empty)
      true
    }

    override def process(r: Row): Unit = {
      val seen = Seen(
        r.getAs[String]("stream"),
        r.getAs[String]("shardId"),
        r.getAs[String]("sequenceNumber"),
        r.getAs[String]("partitionKey"),
        new String(r.getAs[Array[Byte]]("data"), UTF_8)
      )
      rows.compute(key, (_, held) => held :+ seen)
      if (msPerRow > 0) Thread.sleep(msPerRow)
    }

    override def close(errorOrNull: Throwable): Unit = ()
  }
}
