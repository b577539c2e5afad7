// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.client.{KinesisApi, RecordBatch}
import io.github.sparkkinesis.errors.KinesisException
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

  private def perCall(records: Int) = DefaultConfigs.Prefetch.copy(maxRecordsPerFetch = records)

  private def read(api: KinesisApi, key: ShardKey, start: ShardPosition, end: String, perCall: Int = 10) =
    new ShardRangeReader(api, key, start, Some(ShardPosition.After(end)), this.perCall(perCall), clock)
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
        Some(ShardPosition.After(seqs.last)),
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
    assert(clock.slept - slept >= PolledReads.ThrottlePauseMs)
  }

  test("a shard throttled for five minutes without a break fails the task, naming the call") {
    val (api, key, seqs) = setUp(5)
    api.throttleNextGetRecords = Int.MaxValue
    val slept = clock.slept
    val e = intercept[KinesisException](read(api, key, ShardPosition.TrimHorizon, seqs.last))
    assert(e.getMessage.contains("KINESIS_CALL_FAILED"), e.getMessage)
    assert(e.getMessage.contains("GetRecords"), e.getMessage)
    assert(clock.slept - slept >= ShardRangeReader.MaxThrottledMs)
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
      new ShardRangeReader(api, key, ShardPosition.After(seqs(1)), None, perCall(5), clock)
        .map(_.sequenceNumber)
        .toVector ==
        seqs.drop(2))
  }
}
