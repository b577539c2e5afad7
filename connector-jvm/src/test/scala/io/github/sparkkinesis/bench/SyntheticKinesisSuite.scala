// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, Secret}
import io.github.sparkkinesis.bench.synthetic.{ShardLimits, StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.client._
import io.github.sparkkinesis.kpl.{AggregatedRecords, Deaggregation}
import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardKey, ShardPosition}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.BeforeAndAfterAll
import software.amazon.awssdk.services.kinesis.model.{GetRecordsRequest, ProvisionedThroughputExceededException}

/**
 * The benchmarks' synthetic Kinesis, as the connector's own client sees it: it must answer as Kinesis does,
 * or the benchmarks measure something else.
 */
class SyntheticKinesisSuite extends AnyFunSuite with BeforeAndAfterAll {

  private lazy val kinesis = SyntheticKinesis.start(threads = 4)
  private lazy val aws =
    AwsConfig("us-east-1", Some(kinesis.endpoint), AwsCredentialsConfig.StaticKeys("bench", new Secret("bench"), None))

  /** The connector's clients, each for its side, as the integration suites' record of calls expects. */
  private lazy val api: KinesisApi = KinesisClientFactory.create(aws, ClientUse.Reading)
  private lazy val writer: KinesisApi = KinesisClientFactory.create(aws, ClientUse.Writing)

  override protected def afterAll(): Unit =
    try {
      api.close()
      writer.close()
      kinesis.close()
    } finally super.afterAll()

  private def newStream(spec: String => StreamSpec): String = {
    val name = s"synthetic-${java.util.UUID.randomUUID().toString.take(8)}"
    kinesis.create(spec(name))
    name
  }

  test("a stream is described and its shards listed page by page, their hash key ranges covering every key") {
    val stream = newStream(StreamSpec(_, shards = 7))
    val summary = api.describeStream(stream)
    assert(summary.name == stream && summary.status == "ACTIVE" && summary.openShards == 7)
    assert(summary.arn.endsWith(s":stream/$stream"))
    val shards = api.listShards(stream, 3)
    assert(shards.map(_.shardId) == (0 until 7).map(i => f"shardId-$i%012d"))
    assert(shards.head.hashKeyRange._1 == 0 && shards.last.hashKeyRange._2 == ShardInfo.MaxHashKey)
    shards.zip(shards.tail).foreach { case (a, b) => assert(a.hashKeyRange._2 + 1 == b.hashKeyRange._1) }
    assert(shards.forall(s => s.parents.isEmpty && !s.isClosed))
  }

  test("records are read in order from every kind of iterator, with sequence numbers that order as Kinesis'") {
    val stream = newStream(StreamSpec(_, shards = 2, backlogPerShard = 25, recordBytes = 10))
    val shard = "shardId-000000000001"
    type Read = (String, String, Seq[Byte], Long)
    def view(r: KinesisRecord): Read = (r.sequenceNumber, r.partitionKey, r.data.toSeq, r.approximateArrivalMillis)
    def readAll(start: IteratorStart, limit: Int = 10): Vector[Read] = {
      var iterator = api.getShardIterator(stream, shard, start)
      var records = Vector.empty[Read]
      var caughtUp = false
      while (!caughtUp) {
        val batch = api.getRecords(stream, shard, iterator, limit)
        assert(batch.records.size <= limit)
        records ++= batch.records.map(view)
        caughtUp = batch.records.isEmpty && batch.millisBehindLatest == 0
        iterator = batch.nextIterator.get
      }
      records
    }
    val all = readAll(IteratorStart.TrimHorizon)
    assert(all.size == 25 && all.forall(_._3.length == 10))
    all.zip(all.tail).foreach { case (a, b) =>
      assert(SequenceNumbers.compare(a._1, b._1) < 0)
      assert(a._4 < b._4)
    }
    assert(readAll(IteratorStart.AtSequenceNumber(all(7)._1)) == all.drop(7))
    assert(readAll(IteratorStart.AfterSequenceNumber(all(7)._1)) == all.drop(8))
    assert(readAll(IteratorStart.AtTimestamp(all(12)._4)) == all.drop(12))
    assert(readAll(IteratorStart.Latest).isEmpty)
    val first = api.getRecords(stream, shard, api.getShardIterator(stream, shard, IteratorStart.TrimHorizon), 3)
    assert(
      first.records.map(view) == all.take(3) && first.millisBehindLatest > 0,
      "behind the tip by the backlog's age")
  }

  test("what PutRecords writes is routed by hash key and read after the backlog, KPL aggregates whole") {
    val stream = newStream(StreamSpec(_, shards = 4, backlogPerShard = 2, recordBytes = 5, aggregated = 3))
    val shards = api.listShards(stream, 100)
    val latest = shards.map(s => s.shardId -> api.getShardIterator(stream, s.shardId, IteratorStart.Latest)).toMap
    val put = (0 until 40).map(i => PutRecord(s"key-$i", s"record $i".getBytes("UTF-8")))
    val results = writer.putRecords(stream, put)
    assert(results.forall(_.succeeded))
    val read = shards.flatMap { s =>
      val batch = api.getRecords(stream, s.shardId, latest(s.shardId), 100)
      assert(
        batch.records.map(_.partitionKey).forall(k => results(k.stripPrefix("key-").toInt).shardId.contains(s.shardId)))
      batch.records.map(r => r.partitionKey -> new String(r.data, "UTF-8"))
    }
    assert(read.sortBy(_._1) == put.map(p => p.partitionKey -> new String(p.data, "UTF-8")).sortBy(_._1))
    assert(read.map(_._1).distinct.size == 40 && shards.forall(s => results.exists(_.shardId.contains(s.shardId))))
    assert(kinesis.callCounts("PutRecords") >= 1)

    val backlog = api.getRecords(
      stream,
      shards.head.shardId,
      api.getShardIterator(stream, shards.head.shardId, IteratorStart.TrimHorizon),
      100)
    val (users, corrupt) = Deaggregation.userRecords(
      ShardKey(stream, shards.head.shardId),
      backlog.records.take(2),
      ShardPosition.TrimHorizon)
    assert(corrupt == 0 && users.size == 6 && users.map(_.data.length).distinct == Seq(5))
    assert(AggregatedRecords.decode(backlog.records.head.data).isInstanceOf[AggregatedRecords.Aggregate])
  }

  test("with Kinesis' limits a shard turns down GetRecords calls beyond 5 a second as Kinesis does") {
    val stream = newStream(StreamSpec(_, shards = 1, backlogPerShard = 100, limits = true))
    val shard = "shardId-000000000000"
    val sdk = kinesis.sdkClient() // without the SDK's retries, which hide throttling
    try {
      val iterator = api.getShardIterator(stream, shard, IteratorStart.TrimHorizon)
      val request = GetRecordsRequest.builder().shardIterator(iterator).limit(1).build()
      val started = System.nanoTime()
      val answers = (1 to 30).map { _ =>
        try Right(sdk.getRecords(request))
        catch { case refused: ProvisionedThroughputExceededException => Left(refused) }
      }
      val seconds = (System.nanoTime() - started) / 1e9
      val served = answers.count(_.isRight)
      assert(served >= 5 && served <= 5 + math.ceil(5 * seconds), s"$served calls served in $seconds s")
      val refused = answers.collectFirst { case Left(e) => e }.get
      assert(refused.statusCode() == 400 && refused.getMessage.contains(s"Rate exceeded for shard $shard"))
      assert(kinesis.callCounts("GetRecords throttled") == 30 - served)
    } finally sdk.close()
  }

  test("the limits: 5 calls and 2 MB a second to read, a 10 MiB answer holding the shard for about 5 s") {
    var now = 0L
    val limits = new ShardLimits(() => now)
    def second(): Unit = now += 1000000000L
    assert((1 to 6).map(_ => limits.admitGetRecords()) == Seq.fill(5)(true) :+ false)
    second()
    assert(limits.admitGetRecords())
    limits.chargeRead(10L * 1024 * 1024)
    (1 to 3).foreach { _ =>
      second()
      assert(!limits.admitGetRecords(), "still paying for the 10 MiB answer")
    }
    second()
    second()
    assert(limits.admitGetRecords())
    assert((1 to 1001).map(_ => limits.admitWrite(10)).count(identity) == 1000, "1,000 records a second")
    second()
    assert(limits.admitWrite(1024 * 1024) && !limits.admitWrite(1), "1 MiB a second")
  }
}
