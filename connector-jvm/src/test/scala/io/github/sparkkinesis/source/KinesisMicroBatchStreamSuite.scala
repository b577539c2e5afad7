package io.github.sparkkinesis.source

import java.nio.file.Files

import io.github.sparkkinesis.config.{AwsConfig, AwsCredentialsConfig, InitialPosition, KinesisSourceConfig}
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}
import io.github.sparkkinesis.testing.{FakeKinesisApi, ManualClock}
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.connector.read.streaming.ReadLimit
import org.scalatest.funsuite.AnyFunSuite

class KinesisMicroBatchStreamSuite extends AnyFunSuite {

  private val aws = AwsConfig("us-east-1", Some("http://fake"), AwsCredentialsConfig.DefaultChain)

  private def config(position: InitialPosition, streams: Seq[String], maxRecords: Int) =
    KinesisSourceConfig(streams, position, maxRecords, shardFetchIntervalMs = 0, aws)

  private class Fixture(position: InitialPosition, streams: Seq[String] = Seq("s"), maxRecords: Int = 100) {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val checkpoint: String = Files.createTempDirectory("kinesis-stream-suite").toString
    def newStream() = new KinesisMicroBatchStream(
      config(position, streams, maxRecords),
      checkpoint,
      clock,
      _ => api,
      () => new Configuration()
    )
    val stream = newStream()

    def latest(from: KinesisSourceOffset): KinesisSourceOffset = {
      clock.advance(KinesisMicroBatchStream.MinProbeIntervalMs)
      stream.latestOffset(from, ReadLimit.allAvailable()).asInstanceOf[KinesisSourceOffset]
    }

    def ranges(from: KinesisSourceOffset, to: KinesisSourceOffset): Seq[(String, ShardPosition, String)] =
      stream.planInputPartitions(from, to).toSeq.map { p =>
        val k = p.asInstanceOf[KinesisInputPartition]
        (k.shard.shardId, k.start, k.endSequenceNumber)
      }
  }

  test("trim_horizon starts every shard at its oldest record") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    val shards = f.api.createStream("s", 2)
    val initial = f.stream.initialOffset().asInstanceOf[KinesisSourceOffset]
    assert(initial.shards == shards.map(id => ShardKey("s", id) -> ShardPosition.TrimHorizon).toMap)
  }

  test("latest is pinned to the query's start time, and closed shards are done") {
    val f = new Fixture(InitialPosition.Latest)
    val Seq(a, b) = f.api.createStream("s", 2)
    val (c1, c2) = f.api.split("s", b)
    val initial = f.stream.initialOffset().asInstanceOf[KinesisSourceOffset]
    val started = ShardPosition.AtTimestamp(f.clock.nowMillis())
    assert(
      initial.shards == Map(
        ShardKey("s", a) -> started,
        ShardKey("s", b) -> ShardPosition.ShardEnd,
        ShardKey("s", c1) -> started,
        ShardKey("s", c2) -> started
      )
    )
  }

  test("at_timestamp starts every shard at that instant") {
    val f = new Fixture(InitialPosition.AtTimestamp(1234L))
    val Seq(a) = f.api.createStream("s", 1)
    assert(
      f.stream.initialOffset().asInstanceOf[KinesisSourceOffset].shards == Map(
        ShardKey("s", a) -> ShardPosition.AtTimestamp(1234L)
      )
    )
  }

  test("the initial offset is kept in the checkpoint: a restart before the first batch reuses it") {
    val f = new Fixture(InitialPosition.Latest)
    f.api.createStream("s", 1)
    val first = f.stream.initialOffset()
    f.clock.advance(60000)
    assert(f.newStream().initialOffset() == first)
  }

  test("each batch ends where the probe found the last record, and partitions cover exactly that range") {
    val f = new Fixture(InitialPosition.TrimHorizon, maxRecords = 2)
    val Seq(a, b) = f.api.createStream("s", 2)
    val seqA = (1 to 3).map(i => f.api.put("s", a, s"a$i"))
    val initial = f.stream.initialOffset().asInstanceOf[KinesisSourceOffset]
    val first = f.latest(initial)
    assert(first.shards(ShardKey("s", a)) == ShardPosition.After(seqA(1)))
    assert(first.shards(ShardKey("s", b)) == ShardPosition.TrimHorizon)
    assert(f.ranges(initial, first) == Seq((a, ShardPosition.TrimHorizon, seqA(1))))
    val second = f.latest(first)
    assert(f.ranges(first, second) == Seq((a, ShardPosition.After(seqA(1)), seqA(2))))
    assert(f.latest(second) == second, "no new data, no new offset")
  }

  test("after a split, the children are read only once the parent is read to its end") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    val Seq(p) = f.api.createStream("s", 1)
    val parentSeq = f.api.put("s", p, "before split")
    val initial = f.stream.initialOffset().asInstanceOf[KinesisSourceOffset]
    val (c1, _) = f.api.split("s", p)
    val childSeq = f.api.put("s", c1, "after split")
    val first = f.latest(initial)
    assert(f.ranges(initial, first) == Seq((p, ShardPosition.TrimHorizon, parentSeq)))
    assert(first.shards(ShardKey("s", c1)) == ShardPosition.TrimHorizon)
    val second = f.latest(first)
    assert(second.shards(ShardKey("s", p)) == ShardPosition.ShardEnd)
    assert(f.ranges(first, second).isEmpty)
    val third = f.latest(second)
    assert(f.ranges(second, third) == Seq((c1, ShardPosition.TrimHorizon, childSeq)))
  }

  test("several streams are tracked side by side") {
    val f = new Fixture(InitialPosition.TrimHorizon, streams = Seq("s", "t"))
    val Seq(a) = f.api.createStream("s", 1)
    val Seq(b) = f.api.createStream("t", 1)
    val sa = f.api.put("s", a, "x")
    val tb = f.api.put("t", b, "y")
    val initial = f.stream.initialOffset().asInstanceOf[KinesisSourceOffset]
    val end = f.latest(initial)
    assert(end.shards == Map(ShardKey("s", a) -> ShardPosition.After(sa), ShardKey("t", b) -> ShardPosition.After(tb)))
    assert(f.stream.toString == "KinesisV2[s,t]")
  }

  test("a stream that does not exist fails with its name and the endpoint") {
    val f = new Fixture(InitialPosition.TrimHorizon, streams = Seq("missing"))
    val e = intercept[io.github.sparkkinesis.errors.KinesisConnectorException](f.stream.initialOffset())
    assert(e.getMessage.contains("Stream 'missing' was not found at fake-kinesis (region us-east-1)"))
  }

  test("the no-argument latestOffset is not used") {
    val f = new Fixture(InitialPosition.TrimHorizon)
    intercept[UnsupportedOperationException](f.stream.latestOffset())
  }

  test("metrics report the lag behind each shard's newest record and the shard counts") {
    val f = new Fixture(InitialPosition.TrimHorizon, maxRecords = 2)
    val Seq(a, b) = f.api.createStream("s", 2)
    (1 to 3).foreach(i => f.api.put("s", a, s"a$i"))
    f.api.split("s", b)
    val initial = f.stream.initialOffset().asInstanceOf[KinesisSourceOffset]
    f.latest(initial)
    import scala.jdk.CollectionConverters._
    val metrics = f.stream.metrics(java.util.Optional.empty()).asScala
    // Shard a still has a record after the probe (the fake says 1000 ms behind); shard b is read to its tip.
    assert(metrics("maxMsBehindLatest") == "1000")
    assert(metrics("minMsBehindLatest") == "0")
    assert(metrics("avgMsBehindLatest") == "500.0")
    assert(metrics("numTotalShards") == "4")
    assert(metrics("numClosedShards") == "1")
    assert(metrics("numThrottledFetches") == "0")
  }

  test("Trigger.AvailableNow reads what arrived before the run began, then the offset stops moving") {
    val f = new Fixture(InitialPosition.TrimHorizon, maxRecords = 2)
    val Seq(a, b) = f.api.createStream("s", 2)
    val before = (1 to 5).map(i => f.api.put("s", a, s"a$i"))
    f.clock.advance(10)
    f.stream.prepareForTriggerAvailableNow()
    f.clock.advance(10)
    (1 to 3).foreach(i => f.api.put("s", a, s"late-a$i"))
    (1 to 3).foreach(i => f.api.put("s", b, s"late-b$i"))
    var offset = f.stream.initialOffset().asInstanceOf[KinesisSourceOffset]
    val ends = Iterator
      .continually {
        offset = f.stream.latestOffset(offset, ReadLimit.allAvailable()).asInstanceOf[KinesisSourceOffset]; offset
      }
      .take(10)
      .map(_.shards(ShardKey("s", a)))
      .toSeq
    // Each call returns new data at once (no pacing gap ends the run early), then the offset settles.
    assert(ends.take(4) == Seq(before(1), before(3), before(4), before(4)).map(ShardPosition.After(_)))
    assert(offset.shards(ShardKey("s", b)) == ShardPosition.TrimHorizon, "b had nothing before the run began")
  }
}
