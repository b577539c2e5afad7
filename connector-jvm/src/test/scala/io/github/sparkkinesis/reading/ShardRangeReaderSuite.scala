// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.client.{KinesisApi, RecordBatch, StreamSummary}
import io.github.sparkkinesis.errors.KinesisException
import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.testing.{DefaultConfigs, DelegatingKinesisApi, FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

class ShardRangeReaderSuite extends AnyFunSuite {

  private val clock = new ManualClock()

  private def setUp(records: Int): (FakeKinesisApi, ShardKey, Seq[String]) = {
    val api = new FakeKinesisApi(clock)
    val shard = api.createStream("s", 1).head
    val seqs = (1 to records).map(i => api.put("s", shard, s"r$i"))
    (api, ShardKey("s", shard), seqs)
  }

  private def perCall(records: Int) = DefaultConfigs.Reading.copy(maxRecordsPerFetch = records)

  private def read(api: KinesisApi, key: ShardKey, start: ShardPosition, end: String, perCall: Int = 10) =
    new ShardRangeReader(api, key, start, ReadEnd.Through(ShardPosition.After(end)), this.perCall(perCall), clock)
      .map(_.sequenceNumber)
      .toVector

  test("reads exactly the range: after the start, up to and including the end") {
    val (api, key, seqs) = setUp(30)
    assert(read(api, key, ShardPosition.After(seqs(4)), seqs(20), perCall = 7) == seqs.slice(5, 21))
    assert(read(api, key, ShardPosition.TrimHorizon, seqs(2)) == seqs.take(3))
  }

  test("records beyond the end are never returned, even when one call fetches them") {
    val (api, key, seqs) = setUp(30)
    assert(read(api, key, ShardPosition.TrimHorizon, seqs(4), perCall = 100) == seqs.take(5))
  }

  test("an expired iterator is renewed after the last record fetched, without repeats or gaps") {
    val (api, key, seqs) = setUp(25)
    val reader =
      new ShardRangeReader(
        api,
        key,
        ShardPosition.TrimHorizon,
        ReadEnd.Through(ShardPosition.After(seqs.last)),
        perCall(10),
        clock)
    val first = reader.take(12).map(_.sequenceNumber).toVector
    api.expireIterators()
    val rest = reader.map(_.sequenceNumber).toVector
    assert(first ++ rest == seqs)
    assert(api.calls("GetShardIterator") == 2)
  }

  test("throttled calls are retried after a backoff") {
    val (api, key, seqs) = setUp(5)
    api.throttleNextGetRecords = 3
    assert(read(api, key, ShardPosition.TrimHorizon, seqs.last) == seqs)
    assert(clock.slept > 0)
  }

  test("throttled, a range read again rests and asks for half as many records, as prefetching does") {
    val (api, key, seqs) = setUp(20)
    val asked = ArrayBuffer.empty[Int]
    val recording = new DelegatingKinesisApi(api) {
      override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch = {
        asked += limit
        super.getRecords(stream, shardId, iterator, limit)
      }
    }
    api.throttleNextGetRecords = 1
    val slept = clock.slept
    assert(read(recording, key, ShardPosition.TrimHorizon, seqs.last, perCall = 8) == seqs)
    assert(asked == Seq(8, 4, 8, 8), "halved after the throttled call, doubled back after each success")
    assert(clock.slept - slept >= PolledReads.ThrottlePauseMs / 2, "a rest of 2.5 to 5 s")
  }

  test("a shard throttled for five minutes without a break fails the task, naming the call") {
    val (api, key, seqs) = setUp(5)
    api.throttleNextGetRecords = Int.MaxValue
    val slept = clock.slept
    val e = intercept[KinesisException](read(api, key, ShardPosition.TrimHorizon, seqs.last))
    assert(e.getMessage.contains("KINESIS_CALL_FAILED"), e.getMessage)
    assert(e.getMessage.contains("GetRecords"), e.getMessage)
    assert(clock.slept - slept >= ShardRangesReader.MaxThrottledMs)
  }

  test("a closed shard that ends before the range does fails the task with the reason") {
    val (api, key, seqs) = setUp(5)
    api.split("s", key.shardId)
    val e = intercept[KinesisException](
      read(api, key, ShardPosition.TrimHorizon, "49700000000000000000000000000000000000000000000000000000")
    )
    assert(e.getMessage.contains("KINESIS_RANGE_INCOMPLETE"))
    assert(e.getMessage.contains(seqs.last))
  }

  test("without an end sequence number, a closed shard is read to its end") {
    val (api, key, seqs) = setUp(12)
    api.split("s", key.shardId)
    assert(
      new ShardRangeReader(api, key, ShardPosition.After(seqs(1)), ReadEnd.Open, perCall(5), clock)
        .map(_.sequenceNumber)
        .toVector ==
        seqs.drop(2))
  }

  test("a range up to an instant ends at the first record that arrived at or after it, without waiting") {
    val (api, key, seqs) = setUp(5)
    val instant = clock.nowMillis() + 1
    clock.advance(10)
    (1 to 3).foreach(i => api.put("s", key.shardId, s"late$i"))
    val slept = clock.slept
    val read =
      new ShardRangeReader(api, key, ShardPosition.TrimHorizon, ReadEnd.ArrivedBefore(instant), perCall(4), clock)
    assert(read.map(_.sequenceNumber).toVector == seqs)
    assert(clock.slept - slept <= 400, "one pause between the two calls")
  }

  test("a range up to an instant ends at the shard's tip once an answer after the instant reaches it") {
    val (api, key, seqs) = setUp(3)
    val instant = clock.nowMillis() + 1
    clock.advance(10)
    val end = ReadEnd.ArrivedBefore(instant, StreamSummary.DefaultMaxRecordBytes)
    val read = new ShardRangeReader(api, key, ShardPosition.TrimHorizon, end, perCall(10), clock)
    assert(read.map(_.sequenceNumber).toVector == seqs)
    val empty = new ShardRangeReader(api, key, ShardPosition.After(seqs.last), end, perCall(10), clock)
    assert(!empty.hasNext)
    assert(api.calls("GetRecords") == 2, "one call for the records, which reached the tip, one for the empty range")
  }

  test("a range up to an instant in a stream of records up to 10 MiB ends at an empty answer after the instant") {
    val (api, key, seqs) = setUp(3)
    val instant = clock.nowMillis() + 1
    clock.advance(10)
    val end = ReadEnd.ArrivedBefore(instant, StreamSummary.LargestMaxRecordBytes)
    val read = new ShardRangeReader(api, key, ShardPosition.TrimHorizon, end, perCall(10), clock)
    assert(read.map(_.sequenceNumber).toVector == seqs)
    assert(api.calls("GetRecords") == 2, "the answer with the records could have been cut before a 10 MiB record")
  }

  test("while Kinesis cannot be reached the range is tried again, and given up after outageTimeout as an outage") {
    val (api, key, seqs) = setUp(5)
    api.down = true
    val patient = DefaultConfigs.Reading.copy(outageTimeoutMs = Some(60000))
    def whole() =
      new ShardRangeReader(
        api,
        key,
        ShardPosition.TrimHorizon,
        ReadEnd.Through(ShardPosition.After(seqs.last)),
        patient,
        clock)
    val started = clock.nowMillis()
    val e = intercept[KinesisException](whole().hasNext)
    assert(e.getMessage.startsWith("[KINESIS_UNAVAILABLE]"), e.getMessage)
    assert(e.getMessage.contains("The last failure: Connection refused"), e.getMessage)
    assert(clock.nowMillis() - started >= 60000)
    api.down = false
    assert(whole().map(_.sequenceNumber).toVector == seqs)
  }

  test("records trimmed before they were read fail the range with the data lost, unless failOnDataLoss is false") {
    val (api, key, seqs) = setUp(10)
    api.trim("s", key.shardId, 4)
    val e = intercept[KinesisException](read(api, key, ShardPosition.After(seqs(1)), seqs.last))
    assert(e.getMessage.contains("KINESIS_DATA_LOSS"), e.getMessage)
    val lenient = DefaultConfigs.Reading.copy(failOnDataLoss = false)
    val rest = new ShardRangeReader(
      api,
      key,
      ShardPosition.After(seqs(1)),
      ReadEnd.Through(ShardPosition.After(seqs.last)),
      lenient,
      clock)
    assert(rest.map(_.sequenceNumber).toVector == seqs.drop(4))
  }

  test("a range may end inside a KPL aggregate: its user records up to that one") {
    val api = new FakeKinesisApi(clock)
    val shard = api.createStream("s", 1).head
    val key = ShardKey("s", shard)
    val aggregate = AggregatedRecords.encode((0 until 5).map(i => UserRecord(s"k$i", None, s"u$i".getBytes("UTF-8"))))
    val seq = api.putBytes("s", shard, aggregate, "k0")
    val end = ReadEnd.Through(ShardPosition.After(seq, Some(2L)))
    val read = new ShardRangeReader(api, key, ShardPosition.After(seq, Some(0L)), end, perCall(10), clock).toVector
    assert(read.map(r => new String(r.data, "UTF-8")) == Seq("u1", "u2"))
  }

  test("several ranges are read together on one thread, each in order, a child's after its parent's") {
    val (api, parent, before) = setUp(12)
    val (c1, c2) = api.split("s", parent.shardId)
    val children = Seq(c1, c2).map(id => id -> (1 to 6).map(i => api.put("s", id, s"$id-$i"))).toMap
    clock.advance(1)
    val until = ReadEnd.ArrivedBefore(clock.nowMillis(), StreamSummary.DefaultMaxRecordBytes)
    val ranges = IndexedSeq(
      ShardRange(parent, ShardPosition.TrimHorizon, ReadEnd.Open),
      ShardRange(ShardKey("s", c1), ShardPosition.TrimHorizon, until, after = Seq(parent)),
      ShardRange(ShardKey("s", c2), ShardPosition.TrimHorizon, until, after = Seq(parent))
    )
    val reader = new ShardRangesReader(api, ranges, perCall(4), clock)
    val calls = Iterator.continually(reader.next()).takeWhile(_.isDefined).flatten.toVector
    val byRange = calls.groupBy(_._1).map { case (i, read) => i -> read.flatMap(_._2.map(_.sequenceNumber)) }
    assert(byRange == Map(0 -> before, 1 -> children(c1), 2 -> children(c2)))
    val lastOfParent = calls.lastIndexWhere(_._1 == 0)
    assert(calls.indexWhere(_._1 != 0) > lastOfParent, "no child record before the parent's last")
    assert(calls.drop(lastOfParent + 1).map(_._1).take(2).toSet == Set(1, 2), "the children's calls take turns")
  }
}
