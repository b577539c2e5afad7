// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.sql.Timestamp
import java.time.Instant

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardPosition}
import io.github.sparkkinesis.testing.KinesisEmulator
import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

/** Reads through Spark from a real Kinesis API: kinesis-local by default, or KINESIS_ENDPOINT. */
class KinesisSourceIntegrationSuite extends AnyFunSuite with SourceIntegration {

  test("reads every record of a multi-shard stream exactly once, with its columns", Integration) {
    val stream = newStream(shards = 3)
    val values = (1 to 600).map(i => s"record-$i")
    val results = put(stream, values)
    val collector = new BatchCollector
    val query = collector.start(read(stream)("initialPosition" -> "trim_horizon"), newCheckpoint())
    val rows = runUntil(collector, query, values.size)
    assert(rows.sortBy(_.seq) == expected(stream, values, results).sortBy(_.seq))
    val metrics = query.lastProgress.sources.head.metrics
    assert(metrics.get("numTotalShards") == "3")
    assert(metrics.get("maxMsBehindLatest").toLong >= 0, metrics)
    assert(metrics.containsKey("avgMsBehindLatest") && metrics.containsKey("minMsBehindLatest"), metrics)
    assert(metrics.get("numStreams") == "1", metrics)
    assert(metrics.get("numRegisteredConsumers") == "0", "polling reads through no consumer")
    assert(metrics.get("numAwsRateLimitErrors").toLong >= 0, metrics)
    val arrival = collector.rows.map(_.getAs[Timestamp]("approximateArrivalTimestamp").toInstant)
    assert(arrival.forall(t => t.isAfter(Instant.now().minusSeconds(600)) && t.isBefore(Instant.now().plusSeconds(60))))
  }

  test("a restarted query continues where it stopped: nothing lost, nothing repeated", Integration) {
    val stream = newStream(shards = 2)
    val checkpoint = newCheckpoint()
    val first = (1 to 200).map(i => s"first-$i")
    val firstResults = put(stream, first)
    val collector = new BatchCollector
    val before =
      runUntil(collector, collector.start(read(stream)("initialPosition" -> "trim_horizon"), checkpoint), first.size)
    assert(before.sortBy(_.seq) == expected(stream, first, firstResults).sortBy(_.seq))

    // As if the driver had died after writing the last batch but before committing it: Spark must run
    // that batch again, from the offset log, and it must read exactly the same records.
    val commits = new java.io.File(checkpoint, "commits").listFiles().filter(_.getName.forall(_.isDigit))
    val lastCommitted = commits.maxBy(_.getName.toLong)
    assert(lastCommitted.delete())
    new java.io.File(lastCommitted.getParentFile, s".${lastCommitted.getName}.crc").delete()

    val second = (1 to 300).map(i => s"second-$i")
    val secondResults = put(stream, second)
    val again = new BatchCollector
    val query = again.start(read(stream)("initialPosition" -> "trim_horizon"), checkpoint)
    // What an idempotent sink holds: a batch written again (it was not committed when the first query
    // stopped) replaces its first writing, and must hold exactly the same records.
    def delivered = collector.batches ++ again.batches
    eventually("all 500 rows", query = Some(query))(delivered.values.map(_.size).sum >= first.size + second.size)
    query.stop()
    val replayed = collector.batches.keySet.intersect(again.batches.keySet)
    assert(replayed.contains(lastCommitted.getName.toLong), "the uncommitted batch ran again")
    replayed.foreach { id =>
      assert(seen(again.batches(id)).sortBy(_.seq) == seen(collector.batches(id)).sortBy(_.seq), s"batch $id replayed")
    }
    val all = seen(delivered.values.flatten.toSeq)
    assert(
      all.sortBy(_.seq) == (expected(stream, first, firstResults) ++ expected(stream, second, secondResults)).sortBy(
        _.seq))
  }

  test(
    "a checkpoint of version 2 offsets, from before version 5, continues; the batches after it are version 5",
    Integration) {
    assume(credentialOptions.nonEmpty, "101 shards: on the emulator only, where they cost nothing")
    // More shards than CompactAbove, so that this connector writes version 5; the last offset of the first
    // run is then rewritten as connectors before version 5 wrote it, as an upgrade finds the checkpoint.
    val stream = newStream(shards = KinesisSourceOffset.CompactAbove + 1)
    val checkpoint = newCheckpoint()
    val first = (1 to 300).map(i => s"first-$i")
    put(stream, first)
    val collector = new BatchCollector
    runUntil(collector, collector.start(read(stream)("initialPosition" -> "trim_horizon"), checkpoint), first.size, 180)

    val offsetLog = new File(checkpoint, "offsets")
    def offsetFiles = offsetLog.listFiles().filter(_.getName.forall(_.isDigit)).sortBy(_.getName.toLong).toSeq
    // An offset log file: "v1", Spark's metadata, then one line per source.
    def sourceOffset(file: File) = Files.readAllLines(file.toPath, UTF_8).asScala(2)
    val last = offsetFiles.last
    assert(sourceOffset(last).startsWith("""{"v":5,"""))
    val offset = KinesisSourceOffset.fromJson(sourceOffset(last))
    val lines = Files.readAllLines(last.toPath, UTF_8).asScala.take(2) :+ readableAsBefore(stream, offset)
    Files.write(last.toPath, lines.mkString("\n").getBytes(UTF_8))
    new File(offsetLog, s".${last.getName}.crc").delete()

    val second = (1 to 300).map(i => s"second-$i")
    val secondResults = put(stream, second)
    val again = new BatchCollector
    val after =
      runUntil(again, again.start(read(stream)("initialPosition" -> "trim_horizon"), checkpoint), second.size, 180)
    assert(after.sortBy(_.seq) == expected(stream, second, secondResults).sortBy(_.seq), "nothing lost or repeated")
    assert(!again.batches.contains(last.getName.toLong), "the batch of the rewritten offset was committed: not rerun")
    assert(KinesisSourceOffset.fromJson(sourceOffset(last)) == offset, "the rewritten offset is left as it is")
    val newer = offsetFiles.filter(_.getName.toLong > last.getName.toLong)
    assert(newer.nonEmpty)
    newer.foreach(f => assert(sourceOffset(f).startsWith("""{"v":5,"""), s"$f: ${sourceOffset(f).take(200)}"))
  }

  /** `offset`, of one stream, in the form of versions 2 to 4, as a connector before version 5 wrote it. */
  private def readableAsBefore(stream: String, offset: KinesisSourceOffset): String = {
    val shards = offset.shards.toSeq.sortBy(_._1.shardId).map { case (key, position) =>
      val fields = position match {
        case ShardPosition.TrimHorizon => """"kind":"trim_horizon""""
        case ShardPosition.AtTimestamp(ms) => s""""kind":"at_timestamp","ms":$ms"""
        case ShardPosition.At(seq) => s""""kind":"at","seq":"$seq""""
        case ShardPosition.After(seq, sub) => s""""kind":"after","seq":"$seq"""" + sub.fold("")(n => s""","sub":$n""")
        case ShardPosition.ShardEnd => """"kind":"shard_end""""
      }
      s""""${key.shardId}":{$fields}"""
    }
    val version = offset.shards.values.foldLeft(2) {
      case (_, ShardPosition.At(_)) => 4
      case (v, ShardPosition.After(_, Some(_))) => math.max(v, 3)
      case (v, _) => v
    }
    val known = offset.identities.get(stream).fold("")(i => s""""arn":"${i.arn}","created":${i.createdAtMillis},""")
    s"""{"v":$version,"streams":{"$stream":{$known"shards":{${shards.mkString(",")}}}}}"""
  }

  test("Trigger.AvailableNow reads everything already in the stream, then the query stops by itself", Integration) {
    val stream = newStream(shards = 2)
    val values = (1 to 400).map(i => s"available-$i")
    val results = put(stream, values)
    val collector = new BatchCollector
    val query = read(stream)("initialPosition" -> "trim_horizon", "maxRecordsPerTrigger" -> "150").writeStream
      .option("checkpointLocation", newCheckpoint())
      .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow())
      .foreachBatch((batch: DataFrame, id: Long) => collector.record(batch, id))
      .start()
    assert(query.awaitTermination(120000), "the AvailableNow run ended by itself")
    assert(query.exception.isEmpty, query.exception)
    assert(seen(collector.rows).sortBy(_.seq) == expected(stream, values, results).sortBy(_.seq))
    val sizes = collector.batches.toSeq.sortBy(_._1).map(_._2.size)
    assert(sizes.size >= 3 && sizes.forall(_ <= 150), s"maxRecordsPerTrigger spreads the backlog: $sizes")
  }

  test("reads several streams in one query", Integration) {
    val (s1, s2) = (newStream(shards = 1), newStream(shards = 2))
    val v1 = (1 to 50).map(i => s"one-$i")
    val v2 = (1 to 70).map(i => s"two-$i")
    val r1 = put(s1, v1)
    val r2 = put(s2, v2)
    val collector = new BatchCollector
    val query = collector.start(read(s1, s2)("initialPosition" -> "earliest"), newCheckpoint())
    val rows = runUntil(collector, query, 120)
    assert(rows.sortBy(r => (r.stream, r.seq)) == (expected(s1, v1, r1) ++ expected(s2, v2, r2)).sortBy(r =>
      (r.stream, r.seq)))
    val metrics = query.lastProgress.sources.head.metrics
    assert(metrics.get("numStreams") == "2" && metrics.get("numTotalShards") == "3", metrics)
  }

  test("latest reads only what arrives after the query started", Integration) {
    val stream = newStream(shards = 2)
    put(stream, (1 to 20).map(i => s"old-$i"))
    val collector = new BatchCollector
    val query = collector.start(read(stream)(), newCheckpoint())
    eventually("the first batch", query = Some(query))(query.lastProgress != null)
    val fresh = (1 to 30).map(i => s"new-$i")
    val results = put(stream, fresh)
    val rows = runUntil(collector, query, fresh.size)
    assert(rows.sortBy(_.seq) == expected(stream, fresh, results).sortBy(_.seq))
  }

  test("at_timestamp reads what arrived at or after the instant, in the documented JSON form", Integration) {
    val stream = newStream(shards = 1)
    put(stream, (1 to 20).map(i => s"before-$i"))
    Thread.sleep(1500)
    val instant = Instant.now()
    Thread.sleep(1500)
    val after = (1 to 25).map(i => s"after-$i")
    val results = put(stream, after)
    val json = s"""{"at_timestamp": "${instant.toString}"}"""
    val collector = new BatchCollector
    val rows =
      runUntil(collector, collector.start(read(stream)("initialPosition" -> json), newCheckpoint()), after.size)
    assert(rows.sortBy(_.seq) == expected(stream, after, results).sortBy(_.seq))
  }

  test("a stream that does not exist fails the query naming the stream and the endpoint", Integration) {
    val collector = new BatchCollector
    val query = collector.start(read("no-such-stream")("initialPosition" -> "trim_horizon"), newCheckpoint())
    eventually("the query to fail")(query.exception.isDefined)
    val message = query.exception.get.getMessage
    assert(message.contains("Stream 'no-such-stream' was not found"), message)
    assert(message.contains(endpoint), message)
    assert(!message.contains(KinesisEmulator.SecretKey), message)
  }

  test("an unreachable endpoint fails the query after outageTimeout, naming the endpoint", Integration) {
    val closed = s"http://127.0.0.1:${KinesisEmulator.freePort()}"
    val df = spark.readStream
      .format("kinesis")
      .option("streamName", "anything")
      .option("endpoint", closed)
      .option("region", region)
      .option("outageTimeout", "5s")
      .options(credentialOptions)
      .load()
    val query = new BatchCollector().start(df, newCheckpoint())
    eventually("the query to fail")(query.exception.isDefined)
    val message = query.exception.get.getMessage
    assert(message.contains("[KINESIS_UNAVAILABLE] Every call to Kinesis at"), message)
    assert(message.contains("(no call has succeeded since"), message)
    assert(message.contains(closed), message)
    assert(message.contains("stream 'anything'"), message)
  }

  test("secret values never reach logs, error messages, plans, progress reports or the UI's data", Integration) {
    val secret = s"SECRET-SENTINEL-${java.util.UUID.randomUUID()}"
    val token = s"TOKEN-SENTINEL-${java.util.UUID.randomUUID()}"
    val secretOptions =
      Map("awsAccessKey" -> KinesisEmulator.AccessKey, "awsSecretKey" -> secret, "awsSessionToken" -> token)
    assume(credentialOptions.nonEmpty, "needs the emulator, which accepts any secret")
    val stream = newStream(shards = 1)
    put(stream, (1 to 10).map(i => s"v$i"))
    val df = read(stream)(("initialPosition" -> "trim_horizon") +: secretOptions.toSeq: _*)
    val collector = new BatchCollector
    val query = collector.start(df, newCheckpoint())
    // The progress report is posted after the sink has the rows: wait for both.
    eventually("10 rows and their progress report", query = Some(query)) {
      collector.rows.size >= 10 && query.recentProgress.map(_.numInputRows).sum >= 10
    }
    query.stop()
    val failing = new BatchCollector().start(read("missing-stream")(secretOptions.toSeq: _*), newCheckpoint())
    eventually("the query to fail")(failing.exception.isDefined)

    val places = wherePeopleLook(df, query, failing.exception.get)
    assert(places("the progress").contains(s"KinesisV2[$stream]"))
    assert(places("the logs").contains(stream), "the log file is the one this run writes")
    places.foreach { case (where, text) =>
      assert(!text.contains(secret), s"the secret key appears in $where")
      assert(!text.contains(token), s"the session token appears in $where")
    }
  }
}
