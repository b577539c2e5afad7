// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, Secret}
import io.github.sparkkinesis.bench.synthetic.{ShardLimits, StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.client._
import io.github.sparkkinesis.kpl.{AggregatedRecords, Deaggregation}
import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardKey, ShardPosition}
import io.github.sparkkinesis.shards.ShardLineage
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.BeforeAndAfterAll
import software.amazon.awssdk.services.kinesis.model.{
  GetRecordsRequest,
  ProvisionedThroughputExceededException,
  ShardIteratorType,
  StartingPosition,
  SubscribeToShardEvent,
  SubscribeToShardEventStream,
  SubscribeToShardRequest,
  SubscribeToShardResponseHandler
}

/**
 * The benchmarks' synthetic Kinesis, as the connector's own client sees it: it must answer as Kinesis does,
 * or the benchmarks measure something else.
 */
class SyntheticKinesisSuite extends AnyFunSuite with BeforeAndAfterAll {

  private lazy val kinesis = SyntheticKinesis.start(threads = 4, consumerDelayMs = 200, subscriptionLifetimeMs = 3000)
  private lazy val aws =
    AwsConfig("us-east-1", Some(kinesis.endpoint), AwsCredentialsConfig.StaticKeys("bench", new Secret("bench"), None))

  /** The connector's clients, each for its side, as the integration suites' record of calls expects. */
  private lazy val api: KinesisApi = KinesisClientFactory.create(aws, ClientUse.Reading)
  private lazy val writer: KinesisApi = KinesisClientFactory.create(aws, ClientUse.Writing)
  private lazy val consumers: KinesisApi = KinesisClientFactory.create(aws, ClientUse.ManagingConsumers)

  override protected def afterAll(): Unit =
    try {
      api.close()
      writer.close()
      consumers.close()
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

  /** Waits up to ten seconds for `done`. */
  private def eventually(what: String)(done: => Boolean): Unit = {
    val deadline = System.nanoTime() + 10L * 1000 * 1000 * 1000
    while (!done) {
      assert(System.nanoTime() < deadline, s"timed out waiting for $what")
      Thread.sleep(20)
    }
  }

  private def putValues(stream: String, prefix: String, n: Int): Seq[PutResult] = {
    val results =
      writer.putRecords(stream, (0 until n).map(i => PutRecord(s"$prefix-$i", s"$prefix $i".getBytes("UTF-8"))))
    assert(results.forall(_.succeeded))
    results
  }

  /** Every record of a shard from its start, and whether its reading ended at a closed shard's end. */
  private def readShard(stream: String, shardId: String): (Seq[KinesisRecord], Boolean) = {
    var iterator = Option(api.getShardIterator(stream, shardId, IteratorStart.TrimHorizon))
    var records = Vector.empty[KinesisRecord]
    var caughtUp = false
    while (iterator.isDefined && !caughtUp) {
      val batch = api.getRecords(stream, shardId, iterator.get, 1000)
      records ++= batch.records
      caughtUp = batch.records.isEmpty && batch.nextIterator.isDefined
      iterator = batch.nextIterator
    }
    (records, iterator.isEmpty)
  }

  test("a split and a merge close their parents, list the children's lineage, and route writes to the children") {
    val stream = newStream(StreamSpec(_, shards = 2, backlogPerShard = 3))
    val before = putValues(stream, "before", 40)
    val admin = KinesisAdminApi.create(aws) // the SDK's own client, through the API
    try admin.splitShard(stream, "shardId-000000000000", (ShardInfo.MaxHashKey / 4).toString)
    finally admin.close()
    val Seq(merged) = Seq(kinesis.merge(stream, "shardId-000000000001", "shardId-000000000003"))
    assert(merged == "shardId-000000000004")
    val after = putValues(stream, "after", 40)

    val shards = api.listShards(stream, 2)
    assert(shards.map(_.shardId) == (0 to 4).map(i => f"shardId-$i%012d"))
    val byId = shards.map(s => s.shardId -> s).toMap
    assert(
      shards.filter(_.isClosed).map(_.shardId) == Seq(
        "shardId-000000000000",
        "shardId-000000000001",
        "shardId-000000000003"))
    assert(byId("shardId-000000000002").parents == Seq("shardId-000000000000"))
    assert(byId("shardId-000000000003").parents == Seq("shardId-000000000000"))
    assert(byId("shardId-000000000004").parents == Seq("shardId-000000000001", "shardId-000000000003"))
    assert(byId("shardId-000000000002").hashKeyRange == ((BigInt(0), ShardInfo.MaxHashKey / 4 - 1)))
    assert(byId("shardId-000000000004").hashKeyRange == ((ShardInfo.MaxHashKey / 4, ShardInfo.MaxHashKey)))
    assert(api.describeStream(stream).openShards == 2)

    // Each shard's records: the parents' end where their writes stopped, with no next iterator.
    val read = shards.map(s => s.shardId -> readShard(stream, s.shardId)).toMap
    assert(read.filter(_._2._2).keySet == shards.filter(_.isClosed).map(_.shardId).toSet)
    shards.filter(_.isClosed).foreach { s =>
      val last = read(s.shardId)._1.lastOption.map(_.sequenceNumber)
      assert(last.forall(SequenceNumbers.compare(_, s.endingSequenceNumber.get) < 0))
    }
    assert(before.forall(r => Set("shardId-000000000000", "shardId-000000000001").contains(r.shardId.get)))
    assert(after.forall(r => Set("shardId-000000000002", "shardId-000000000004").contains(r.shardId.get)))
    val keys = read.values.flatMap(_._1).map(_.partitionKey).filterNot(_ == "generated").toSeq
    assert(keys.sorted == ((0 until 40).map(i => s"before-$i") ++ (0 until 40).map(i => s"after-$i")).sorted)
    // The GetRecords answer at a closed shard's end names its children, as the SDK parses it.
    val sdk = kinesis.sdkClient()
    try {
      val iterator = api.getShardIterator(stream, "shardId-000000000003", IteratorStart.TrimHorizon)
      val end = sdk.getRecords(GetRecordsRequest.builder().shardIterator(iterator).build())
      assert(
        end.nextShardIterator() == null && end.childShards().asScala.map(_.shardId()) == Seq("shardId-000000000004"))
      assert(end.childShards().get(0).parentShards().asScala == Seq("shardId-000000000001", "shardId-000000000003"))
    } finally sdk.close()

    // The connector's lineage: a child is read only once its parents are read to their ends.
    val listed = shards.map(s => ShardKey(stream, s.shardId) -> s).toMap
    val child = ShardKey(stream, "shardId-000000000004")
    assert(ShardLineage.ancestors(Set(child), listed) == Set("0", "1", "3").map(i =>
      ShardKey(stream, s"shardId-00000000000$i")))
    assert(ShardLineage.depth(child, listed) == 2)
  }

  test("UpdateShardCount doubles and halves the open shards evenly, each child with one or two parents") {
    val stream = newStream(StreamSpec(_, shards = 2))
    val admin = KinesisAdminApi.create(aws)
    try {
      admin.updateShardCount(stream, 4)
      val doubled = api.listShards(stream, 100).filterNot(_.isClosed)
      assert(doubled.size == 4 && doubled.forall(_.parents.size == 1))
      val quarter = ShardInfo.MaxHashKey / 4
      assert(doubled.map(_.hashKeyRange._1).sorted.zipWithIndex.forall { case (k, i) => (k - quarter * i).abs <= 4 })
      admin.updateShardCount(stream, 2)
      val halved = api.listShards(stream, 100).filterNot(_.isClosed)
      assert(halved.size == 2 && halved.forall(_.parents.size == 2) && api.describeStream(stream).openShards == 2)
      val half = (ShardInfo.MaxHashKey + 1) / 2
      assert(halved.map(_.hashKeyRange).sortBy(_._1) == Seq((BigInt(0), half - 1), (half, ShardInfo.MaxHashKey)))
    } finally admin.close()
  }

  test("consumers are CREATING, then ACTIVE; deregistered, DELETING, then gone") {
    val stream = newStream(StreamSpec(_, shards = 1))
    val streamArn = api.describeStream(stream).arn
    // Through the side that manages consumers: the integration suites check which actions each side calls.
    val registered = consumers.registerConsumer(streamArn, "reader")
    assert(registered.status == "CREATING")
    assert(registered.arn.startsWith(s"$streamArn/consumer/reader:"))
    intercept[KinesisApiException.InUse](consumers.registerConsumer(streamArn, "reader"))
    eventually("the consumer ACTIVE")(consumers.describeConsumer(streamArn, "reader").exists(_.isActive))
    assert(consumers.describeConsumerByArn(registered.arn).map(_.name).contains("reader"))
    assert(consumers.listConsumers(streamArn).map(_.arn) == Seq(registered.arn))
    assert(kinesis.registerConsumer(stream, "other").startsWith(s"$streamArn/consumer/other:"))
    assert(consumers.listConsumers(streamArn).map(_.name) == Seq("other", "reader"))
    consumers.deregisterConsumer(streamArn, "reader")
    assert(consumers.describeConsumerByArn(registered.arn).map(_.status).contains("DELETING"))
    eventually("the consumer gone")(consumers.describeConsumerByArn(registered.arn).isEmpty)
    assert(consumers.listConsumers(streamArn).map(_.name) == Seq("other"))
    assert(kinesis.deregisterConsumer(stream, "other") && !kinesis.deregisterConsumer(stream, "none"))
  }

  /** The events of a subscription until `done` says enough, or it ends; the subscription's failure thrown. */
  private def events(subscription: ShardSubscription)(
      done: Seq[SubscriptionEvent.Records] => Boolean): Seq[SubscriptionEvent.Records] = {
    var seen = Vector.empty[SubscriptionEvent.Records]
    var ended = false
    val deadline = System.nanoTime() + 10L * 1000 * 1000 * 1000
    while (!ended && !done(seen)) {
      assert(System.nanoTime() < deadline, s"no end after ${seen.size} events")
      subscription.next(100) match {
        case Some(r: SubscriptionEvent.Records) => seen :+= r
        case Some(SubscriptionEvent.Ended) => ended = true
        case None => ()
      }
    }
    seen
  }

  private def activeConsumer(stream: String, name: String): String = {
    val arn = kinesis.registerConsumer(stream, name)
    eventually("the consumer ACTIVE")(api.describeConsumerByArn(arn).exists(_.isActive))
    arn
  }

  test("SubscribeToShard pushes records as they arrive, ends after its lifetime, and at a closed shard's end") {
    val stream = newStream(StreamSpec(_, shards = 1, backlogPerShard = 5))
    val consumer = activeConsumer(stream, "pushed")
    val shard = "shardId-000000000000"
    val subscription = api.subscribeToShard(consumer, shard, IteratorStart.TrimHorizon)
    try {
      assert(events(subscription)(_.map(_.records.size).sum == 5).flatMap(_.records).size == 5)
      val results = putValues(stream, "pushed", 30)
      val pushed = events(subscription)(_.map(_.records.size).sum == 30).flatMap(_.records)
      assert(pushed.map(_.sequenceNumber) == results.map(_.sequenceNumber.get))
      assert(kinesis.openSubscriptions == 1 && kinesis.callCounts("SubscribeToShard") >= 1)
      // The synthetic lifetime is three seconds; then the subscription ends normally.
      assert(events(subscription)(_ => false).forall(_.records.isEmpty))
      assert(subscription.next(100).contains(SubscriptionEvent.Ended))
      eventually("no subscription open")(kinesis.openSubscriptions == 0)
    } finally subscription.close()

    val Seq(left, right) = kinesis.split(stream, shard)
    val last = api.subscribeToShard(
      consumer,
      shard,
      IteratorStart.AfterSequenceNumber(kinesis.stream(stream).shards.head.sequenceNumber(34)))
    try {
      val Seq(end) = events(last)(_.exists(_.shardEnded))
      assert(end.records.isEmpty && end.continuationSequenceNumber.isEmpty && end.childShards == Seq(left, right))
      assert(last.next(1000).contains(SubscriptionEvent.Ended))
    } finally last.close()
  }

  test("the SDK's own asynchronous client subscribes over HTTP/2 with a handler and is pushed each record") {
    val stream = newStream(StreamSpec(_, shards = 1, backlogPerShard = 7, recordBytes = 10))
    val consumer = activeConsumer(stream, "plain")
    val shard = "shardId-000000000000"
    val pushed = new java.util.concurrent.LinkedBlockingQueue[SubscribeToShardEvent]()
    val handler = SubscribeToShardResponseHandler
      .builder()
      .subscriber((event: SubscribeToShardEventStream) =>
        event match {
          case e: SubscribeToShardEvent => pushed.add(e); ()
          case _ => ()
        })
      .build()
    val request = SubscribeToShardRequest
      .builder()
      .consumerARN(consumer)
      .shardId(shard)
      .startingPosition(StartingPosition.builder().`type`(ShardIteratorType.TRIM_HORIZON).build())
      .build()
    val async = kinesis.sdkAsyncClient()
    try {
      val done = async.subscribeToShard(request, handler)
      val written = putValues(stream, "plain", 3)
      var events = Vector.empty[SubscribeToShardEvent]
      while (events.flatMap(_.records().asScala).size < 10) {
        events ++= Option(pushed.poll(10, java.util.concurrent.TimeUnit.SECONDS)).toSeq
        assert(!done.isCompletedExceptionally, "the subscription failed")
      }
      val records = events.flatMap(_.records().asScala)
      assert(records.map(_.data().asByteArray().length).take(7) == Seq.fill(7)(10))
      assert(records.drop(7).map(_.sequenceNumber()) == written.map(_.sequenceNumber.get))
      assert(events.last.continuationSequenceNumber() == records.last.sequenceNumber())
      assert(events.last.millisBehindLatest() == 0L)
    } finally async.close()
  }

  test("a second subscription of a consumer to a shard ends the first; deregistering the consumer ends the second") {
    val stream = newStream(StreamSpec(_, shards = 2))
    val consumer = activeConsumer(stream, "twice")
    val first = api.subscribeToShard(consumer, "shardId-000000000001", IteratorStart.Latest)
    val other = api.subscribeToShard(consumer, "shardId-000000000000", IteratorStart.Latest)
    try {
      events(first)(_.nonEmpty)
      val second = api.subscribeToShard(consumer, "shardId-000000000001", IteratorStart.Latest)
      try {
        intercept[KinesisApiException.InUse](events(first)(_ => false))
        events(second)(_.nonEmpty)
        events(other)(_.nonEmpty)
        assert(kinesis.openSubscriptions == 2)
        assert(kinesis.deregisterConsumer(stream, "twice"))
        intercept[KinesisApiException.ResourceNotFound](events(second)(_ => false))
        intercept[KinesisApiException.ResourceNotFound](events(other)(_ => false))
        assert(kinesis.openSubscriptions == 0)
        val refused = api.subscribeToShard(consumer, "shardId-000000000000", IteratorStart.Latest)
        try intercept[KinesisApiException.ResourceNotFound](events(refused)(_ => false))
        finally refused.close()
      } finally second.close()
    } finally {
      first.close()
      other.close()
    }
  }

  test("an outage: connections refused and subscriptions cut, or every call failed with a 503; then Kinesis again") {
    val stream = newStream(StreamSpec(_, shards = 1, backlogPerShard = 1))
    val consumer = activeConsumer(stream, "outage")
    val subscription = api.subscribeToShard(consumer, "shardId-000000000000", IteratorStart.TrimHorizon)
    try {
      events(subscription)(_.nonEmpty)
      kinesis.during() {
        intercept[KinesisApiException.Unreachable](api.describeStream(stream))
        assert(ApiFailures.outage(intercept[KinesisApiException](events(subscription)(_ => false))))
        assert(kinesis.openSubscriptions == 0)
        val refused = api.subscribeToShard(consumer, "shardId-000000000000", IteratorStart.TrimHorizon)
        try intercept[KinesisApiException.Unreachable](events(refused)(_ => false))
        finally refused.close()
      }
      assert(api.describeStream(stream).openShards == 1)
      kinesis.during(SyntheticKinesis.Outage.Failing) {
        val failed = intercept[KinesisApiException.Failed](api.describeStream(stream))
        assert(failed.getMessage.contains("Service Unavailable") || failed.getMessage.contains("unavailable"), failed)
        assert(kinesis.callCounts("DescribeStreamSummary unavailable") >= 1)
      }
      assert(api.describeStream(stream).openShards == 1)
      val again = api.subscribeToShard(consumer, "shardId-000000000000", IteratorStart.TrimHorizon)
      try assert(events(again)(_.nonEmpty).head.records.size == 1)
      finally again.close()
    } finally subscription.close()
  }

  test("with Kinesis' limits a subscription pushes at most 2 MB a second") {
    val stream = newStream(StreamSpec(_, shards = 1, backlogPerShard = 5000, recordBytes = 1000, limits = true))
    val consumer = activeConsumer(stream, "limited")
    val subscription = api.subscribeToShard(consumer, "shardId-000000000000", IteratorStart.TrimHorizon)
    try {
      val started = System.nanoTime()
      val pushed = events(subscription)(_.map(_.records.size).sum >= 5000)
      val seconds = (System.nanoTime() - started) / 1e9
      val bytes = pushed.flatMap(_.records).map(_.data.length.toLong).sum
      assert(bytes == 5000L * 1000)
      assert(bytes <= ShardLimits.ReadBytesPerSecond * (seconds + 1), s"$bytes bytes in $seconds s")
    } finally subscription.close()
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
