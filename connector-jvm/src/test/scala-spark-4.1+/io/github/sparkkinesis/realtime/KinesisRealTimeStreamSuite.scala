// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import io.github.sparkkinesis.config._
import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import io.github.sparkkinesis.source.QueryStreams
import io.github.sparkkinesis.testing.{StopsFixtureStreams, StreamFixture}
import org.apache.spark.util.LongAccumulator
import org.scalatest.funsuite.AnyFunSuite

class KinesisRealTimeStreamSuite extends AnyFunSuite with StopsFixtureStreams {

  private def stream(options: (String, String)*): KinesisRealTimeStream = {
    val config = KinesisSourceConfig(Map("streamName" -> "s", "region" -> "us-east-1") ++ options, () => None)
    new KinesisRealTimeStream(config, QueryStreams(config, "/nowhere"))
  }

  test("real-time mode refuses each option that means nothing in it, naming the option and why") {
    KinesisOptions.NotInRealTimeMode.foreach { case (option, reason) =>
      // Written as a user might, in another case: options are matched whatever their case.
      val error = intercept[KinesisIllegalArgumentException] {
        stream(option.key.toLowerCase -> option.example).prepareForRealTimeMode()
      }
      assert(error.getCondition == "KINESIS_OPTION_NOT_IN_REAL_TIME_MODE")
      assert(error.getMessage.contains(s"'${option.key}'") && error.getMessage.contains(reason), error.getMessage)
    }
  }

  test("the options that apply in real-time mode are taken as they are") {
    stream("minFetchPeriod" -> "200ms", "maxFetchRate" -> "2.0", "consumerMode" -> "polling").prepareForRealTimeMode()
  }

  /** The fixture's streams, read in real time on `cores` cores. */
  private def realTime(f: StreamFixture, cores: Int): KinesisRealTimeStream = {
    val stream = new KinesisRealTimeStream(f.config, f.newStreams(), f.apis, () => new LongAccumulator, () => cores)
    stream.prepareForRealTimeMode()
    stream
  }

  test("with fewer cores than shards, the shards are dealt in turn to a task per core") {
    val f = new StreamFixture(InitialPosition.TrimHorizon)
    val shards = f.api.createStream("s", 5)
    val stream = realTime(f, cores = 2)
    try {
      val tasks = stream.planInputPartitions(f.initial).toSeq.map(_.asInstanceOf[RealTimeInputPartition])
      assert(tasks.map(_.shards.map(_.key.shardId)) == Seq(Seq(0, 2, 4), Seq(1, 3)).map(_.map(shards)))
      assert(realTime(f, cores = 8).planInputPartitions(f.initial).length == 5, "a task per shard")
    } finally stream.stop()
  }

  test("in real-time mode the progress shows the lag the tasks saw, and nothing of prefetching") {
    val f = new StreamFixture(InitialPosition.TrimHorizon)
    val Seq(shard) = f.api.createStream("s", 1)
    f.api.put("s", shard, "r1")
    val stream = realTime(f, cores = 2)
    try {
      val Seq(task) = stream.planInputPartitions(f.initial).toSeq
      val reader = stream.createReaderFactory().createReader(task).asInstanceOf[RealTimeReader]
      val deadline = System.currentTimeMillis() + 300
      while (reader.nextBefore(deadline).hasRecord) ()
      val end = stream.mergeOffsets(Array(reader.getOffset()))
      reader.close()
      val metrics = stream.metrics(java.util.Optional.of(end))
      assert(metrics.get("maxMsBehindLatest") == "0" && metrics.get("numTotalShards") == "1", metrics)
      assert(!metrics.containsKey("totalPrefetchedBytes") && !metrics.containsKey("numThrottledFetches"), metrics)
      assert(metrics.get("numStreams") == "1" && metrics.get("numRegisteredConsumers") == "0", metrics)
      assert(metrics.get("numAwsRateLimitErrors") == "0", metrics)
    } finally stream.stop()
  }

  test("in real-time mode the throttling answers a task got reach the progress once the task ends") {
    val f = new StreamFixture(InitialPosition.TrimHorizon)
    val Seq(shard) = f.api.createStream("s", 1)
    f.api.put("s", shard, "r1")
    f.api.throttleNextGetRecords = 1
    val stream = realTime(f, cores = 2)
    try {
      val Seq(task) = stream.planInputPartitions(f.initial).toSeq
      val reader = stream.createReaderFactory().createReader(task).asInstanceOf[RealTimeReader]
      val deadline = System.currentTimeMillis() + 300
      while (reader.nextBefore(deadline).hasRecord) ()
      val end = stream.mergeOffsets(Array(reader.getOffset()))
      assert(stream.metrics(java.util.Optional.of(end)).get("numAwsRateLimitErrors") == "0", "the task runs on")
      reader.close()
      assert(f.api.throttleNextGetRecords == 0, "the task's call was throttled")
      assert(stream.metrics(java.util.Optional.of(end)).get("numAwsRateLimitErrors") == "1")
    } finally stream.stop()
  }

  test("a consumer a real-time task found gone is registered again before the next batch; no record is lost") {
    val f = new StreamFixture(
      InitialPosition.TrimHorizon,
      consumer = ConsumerConfig(ConsumerMode.Efo, Some(Seq("rt")), "spark-kinesis_", 300000L, false))
    val Seq(shard) = f.api.createStream("s", 1)
    f.api.put("s", shard, "r1")
    val stream = realTime(f, cores = 2)
    def consumerOf(partition: Any) =
      partition.asInstanceOf[RealTimeInputPartition].shards.map(_.consumerArn)
    val Seq(first) = stream.planInputPartitions(f.initial).toSeq
    val Seq(Some(registered)) = consumerOf(first)
    f.api.deregisterConsumer(f.api.describeStream("s").arn, "spark-kinesis_rt")
    // The task reads the shard by polling once its consumer is gone, and says so with its offset.
    val reader = stream.createReaderFactory().createReader(first).asInstanceOf[RealTimeReader]
    val deadline = System.currentTimeMillis() + 500
    val read = Iterator.continually(reader.nextBefore(deadline)).takeWhile(_.hasRecord).map(_ => reader.get()).size
    val reached = reader.getOffset()
    reader.close()
    assert(read == 1)
    val Seq(next) = stream.planInputPartitions(stream.mergeOffsets(Array(reached))).toSeq
    val Seq(Some(again)) = consumerOf(next)
    assert(again != registered, "the consumer was registered again for the next batch")
  }
}
