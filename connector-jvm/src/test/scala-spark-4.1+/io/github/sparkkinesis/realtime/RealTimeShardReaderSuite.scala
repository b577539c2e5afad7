// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.errors.KinesisThrowable
import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.testing.{DefaultConfigs, FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

class RealTimeShardReaderSuite extends AnyFunSuite {

  private val config = DefaultConfigs.Prefetch.copy(minFetchPeriodMs = 200)

  private def reader(api: FakeKinesisApi, clock: ManualClock, shardId: String, from: ShardPosition) =
    new RealTimeShardReader(RealTimeInputPartition(ShardKey("s", shardId), from, null, config), api, clock)

  /** The data of every record the reader hands on before `deadline`, and the offset it reports then. */
  private def readUntil(r: RealTimeShardReader, deadline: Long): (Seq[String], RealTimeShardOffset) = {
    val data = Iterator
      .continually(r.nextBefore(deadline))
      .takeWhile(_.hasRecord)
      .map(_ => new String(r.get().getBinary(1), UTF_8))
      .toVector
    r.close()
    (data, r.getOffset().asInstanceOf[RealTimeShardOffset])
  }

  test("hands each record on with its arrival time, waits for more until the deadline, and ends after the last") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    val seqs = (1 to 3).map(i => api.put("s", shard, s"r$i"))
    val r = reader(api, clock, shard, ShardPosition.TrimHorizon)
    val deadline = clock.nowMillis() + 5000
    val first = r.nextBefore(deadline)
    assert(first.hasRecord && first.recArrivalTime.isPresent, "a record, with its arrival time")
    val (rest, offset) = readUntil(r, deadline)
    assert(rest == Seq("r2", "r3"))
    assert(clock.nowMillis() == deadline, "waited for more until the deadline")
    assert(offset == RealTimeShardOffset(ShardKey("s", shard), ShardPosition.After(seqs.last), Some(0L)))
  }

  test("a batch that reads nothing reports where it started; the next goes on after the last record") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    val quiet = readUntil(reader(api, clock, shard, ShardPosition.TrimHorizon), clock.nowMillis() + 1000)
    assert(quiet._1.isEmpty && quiet._2.position == ShardPosition.TrimHorizon)
    val seqs = (1 to 2).map(i => api.put("s", shard, s"r$i"))
    val first = readUntil(reader(api, clock, shard, ShardPosition.TrimHorizon), clock.nowMillis() + 1000)
    api.put("s", shard, "r3")
    val second = readUntil(reader(api, clock, shard, first._2.position), clock.nowMillis() + 1000)
    assert(first._1 == Seq("r1", "r2") && first._2.position == ShardPosition.After(seqs.last))
    assert(second._1 == Seq("r3"))
  }

  test("a closed shard read to its end ends the task at once and reports its end") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    api.put("s", shard, "r1")
    api.split("s", shard)
    val started = clock.nowMillis()
    val (data, offset) = readUntil(reader(api, clock, shard, ShardPosition.TrimHorizon), started + 60000)
    assert(data == Seq("r1") && offset.position == ShardPosition.ShardEnd)
    assert(clock.nowMillis() - started < 60000, "not waiting for the deadline")
  }

  test("a batch that ends inside a KPL aggregate reports the record inside it; the next goes on from there") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    val users = (1 to 3).map(i => UserRecord(s"k$i", None, s"u$i".getBytes(UTF_8)))
    val seq = api.putBytes("s", shard, AggregatedRecords.encode(users), "aggregate")
    val first = reader(api, clock, shard, ShardPosition.TrimHorizon)
    val deadline = clock.nowMillis() + 1000
    Seq("u1", "u2").foreach { expectedData =>
      assert(first.nextBefore(deadline).hasRecord)
      assert(new String(first.get().getBinary(1), UTF_8) == expectedData)
    }
    // The batch's deadline comes between two user records of the aggregate.
    val offset = first.getOffset().asInstanceOf[RealTimeShardOffset]
    first.close()
    assert(offset.position == ShardPosition.After(seq, Some(1L)))
    val (rest, _) = readUntil(reader(api, clock, shard, offset.position), clock.nowMillis() + 1000)
    assert(rest == Seq("u3"))
  }

  test("calls that fail while Kinesis cannot be reached are tried again within the batch; a gone stream fails it") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    api.put("s", shard, "r1")
    api.down = true
    val (nothing, offset) = readUntil(reader(api, clock, shard, ShardPosition.TrimHorizon), clock.nowMillis() + 5000)
    assert(nothing.isEmpty && offset.position == ShardPosition.TrimHorizon, "the batch ends with nothing read")
    api.down = false
    val (data, _) = readUntil(reader(api, clock, shard, offset.position), clock.nowMillis() + 1000)
    assert(data == Seq("r1"))
    api.deleteStream("s")
    val error =
      intercept[Exception](reader(api, clock, shard, ShardPosition.TrimHorizon).nextBefore(clock.nowMillis() + 1000))
    assert(error.isInstanceOf[KinesisThrowable], error)
  }
}
