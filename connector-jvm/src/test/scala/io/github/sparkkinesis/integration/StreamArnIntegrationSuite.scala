// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.client.ConsumerInfo
import io.github.sparkkinesis.errors.{ErrorCondition, KinesisException}
import io.github.sparkkinesis.testing.RecordingProxy
import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryException, Trigger}
import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

/**
 * Streams named by ARN (`streamARN`) and consumers registered beforehand (`registeredConsumerId`), against
 * the emulator: reads and writes by ARN, polling and enhanced fan-out, a checkpoint moved between name and
 * ARN, and queries that read through a consumer an administrator registered.
 */
class StreamArnIntegrationSuite extends AnyFunSuite with SourceIntegration {

  private def arnOf(stream: String): String = admin.describeStream(stream).arn

  private def values(prefix: String, n: Int): Seq[String] = (1 to n).map(i => s"$prefix$i")

  /** A read of the streams by ARN: no region, as the ARNs say it. */
  private def readByArn(streams: Seq[String], through: String = endpoint)(options: (String, String)*): DataFrame =
    spark.readStream
      .format("kinesis")
      .option("streamARN", streams.map(arnOf).mkString(","))
      .option("endpoint", through)
      .option("initialPosition", "trim_horizon")
      .options(credentialOptions)
      .options(options.toMap)
      .load()

  private def consumersOf(stream: String): Seq[ConsumerInfo] = admin.listConsumers(arnOf(stream))

  /** Registers a consumer as an administrator would, and waits until it is ACTIVE. */
  private def registeredByAdmin(stream: String, name: String): ConsumerInfo = {
    admin.registerConsumer(arnOf(stream), name)
    eventually(s"$name ACTIVE")(admin.describeConsumer(arnOf(stream), name).exists(_.isActive))
    admin.describeConsumer(arnOf(stream), name).get
  }

  private def availableNow(df: DataFrame, collector: BatchCollector): StreamingQuery =
    df.writeStream
      .option("checkpointLocation", newCheckpoint())
      .trigger(Trigger.AvailableNow())
      .foreachBatch((batch: DataFrame, id: Long) => collector.record(batch, id))
      .start()

  test("every call for a stream named by ARN names it by its ARN, reading and writing", Integration) {
    val stream = newStream(shards = 2)
    val written = values("a", 60)
    val results = put(stream, written)
    val proxy = new RecordingProxy(endpoint)
    try {
      val collector = new BatchCollector
      val query = availableNow(readByArn(Seq(stream), proxy.endpoint)(), collector)
      assert(query.awaitTermination(120000) && query.exception.isEmpty, query.exception)
      assert(seen(collector.rows).sortBy(_.seq) == expected(stream, written, results).sortBy(_.seq))
      assert(seen(collector.rows).forall(_.stream == stream), "the stream column shows the name")
      val session = spark
      import session.implicits._
      Seq(("k", "written by ARN"))
        .toDF("partitionKey", "data")
        .write
        .format("kinesis")
        .option("streamARN", arnOf(stream))
        .option("endpoint", proxy.endpoint)
        .options(credentialOptions)
        .mode("append")
        .save()
      val actions = Set("DescribeStreamSummary", "ListShards", "GetShardIterator", "GetRecords", "PutRecords")
      val made = proxy.calls.filter(c => actions(c.action))
      assert(made.map(_.action).toSet == actions, proxy.calls.map(_.action).distinct)
      made.foreach { call =>
        assert(call.has("StreamARN") && !call.has("StreamName"), s"${call.action} names the stream by its ARN")
      }
    } finally proxy.close()
    val all = admin.listShards(stream, 100).flatMap { s =>
      val it = admin.getShardIterator(stream, s.shardId, io.github.sparkkinesis.client.IteratorStart.TrimHorizon)
      admin.getRecords(stream, s.shardId, it, 1000).records
    }
    assert(all.exists(r => new String(r.data, "UTF-8") == "written by ARN"), "the row reached the stream")
  }

  test("streams named by ARN are read through enhanced fan-out, by a consumer the query registers", Integration) {
    val streams = Seq(newStream(shards = 2), newStream(shards = 1))
    val written = streams.map(s => s -> values(s"$s-", 40))
    val results = written.map { case (s, v) => expected(s, v, put(s, v)) }.flatten
    val collector = new BatchCollector
    val query =
      collector.start(readByArn(streams)("consumerMode" -> "efo", "consumerName" -> "by-arn"), newCheckpoint())
    val delivered = runUntil(collector, query, results.size)
    assert(
      delivered.sortBy(s => (s.stream, s.seq)) == results.sortBy(s => (s.stream, s.seq)),
      "two streams, each record once")
    streams.foreach(s => assert(consumersOf(s).map(_.name) == Seq("spark-kinesis_by-arn")))
  }

  test("a checkpoint written reading by name goes on reading by ARN, and back", Integration) {
    val stream = newStream(shards = 2)
    val checkpoint = newCheckpoint()
    val batches = Seq("a", "b", "c").map(p => values(p, 30))
    def run(df: DataFrame, batch: Seq[String]): Seq[Seen] = {
      val results = put(stream, batch)
      val collector = new BatchCollector
      val delivered = runUntil(collector, collector.start(df, checkpoint), batch.size)
      assert(delivered.sortBy(_.seq) == expected(stream, batch, results).sortBy(_.seq), "each record once")
      delivered
    }
    run(read(stream)("initialPosition" -> "trim_horizon"), batches(0))
    run(readByArn(Seq(stream))(), batches(1))
    run(read(stream)(), batches(2))
  }

  test("a consumer registered beforehand, by name or by ARN, is read through and left registered", Integration) {
    val stream = newStream(shards = 2)
    val admins = registeredByAdmin(stream, "admin-reader")
    val first = values("a", 50)
    val firstResults = put(stream, first)
    val byName = new BatchCollector
    val nameQuery = byName.start(
      read(stream)(
        "initialPosition" -> "trim_horizon",
        "consumerMode" -> "efo",
        "registeredConsumerId" -> "admin-reader"),
      newCheckpoint())
    assert(runUntil(byName, nameQuery, first.size).sortBy(_.seq) == expected(stream, first, firstResults).sortBy(_.seq))
    val byArn = new BatchCollector
    val arnQuery = byArn.start(
      readByArn(Seq(stream))(
        "consumerMode" -> "efo",
        "registeredConsumerIdType" -> "arn",
        "registeredConsumerId" -> admins.arn),
      newCheckpoint())
    assert(runUntil(byArn, arnQuery, first.size).sortBy(_.seq) == expected(stream, first, firstResults).sortBy(_.seq))
    assert(consumersOf(stream).map(c => (c.name, c.arn, c.status)) == Seq(("admin-reader", admins.arn, "ACTIVE")))
  }

  test("a registered consumer that does not exist fails the query at its start, registering none", Integration) {
    val stream = newStream(shards = 1)
    put(stream, values("a", 5))
    val collector = new BatchCollector
    val query =
      collector.start(read(stream)("consumerMode" -> "efo", "registeredConsumerId" -> "nobody"), newCheckpoint())
    val failure = intercept[StreamingQueryException](query.awaitTermination(60000))
    val cause = Iterator.iterate[Throwable](failure)(_.getCause).takeWhile(_ != null).collectFirst {
      case k: KinesisException => k
    }
    assert(cause.flatMap(ErrorCondition.unapply).contains(ErrorCondition.RegisteredConsumerUnusable), failure)
    assert(cause.get.getMessage.contains(s"consumer nobody that registeredConsumerId names for stream '$stream'"))
    assert(consumersOf(stream).isEmpty, "no consumer registered in its stead")
  }
}
