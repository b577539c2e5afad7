// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID

import io.github.sparkkinesis.consumers.ConsumerRegistration
import io.github.sparkkinesis.errors.KinesisThrowable
import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.testing.{DefaultConfigs, FakeKinesisApi, ManualClock}
import io.github.sparkkinesis.util.{Clock, SystemClock}
import org.scalatest.funsuite.AnyFunSuite

class RealTimeReaderSuite extends AnyFunSuite {
  import RealTimeReaderSuite._

  private val config = DefaultConfigs.Reading.copy(minFetchPeriodMs = 200)

  private def readerOf(api: FakeKinesisApi, clock: Clock, shards: RealTimeShard*) =
    new RealTimeReader(RealTimeInputPartition(shards, null, config), api, clock)

  private def reader(api: FakeKinesisApi, clock: ManualClock, shardId: String, from: ShardPosition) =
    readerOf(api, clock, RealTimeShard(ShardKey("s", shardId), from))

  /** The data of every record the reader hands on before `deadline`, and the offsets it reports then. */
  private def readAll(r: RealTimeReader, deadline: Long): (Seq[Row], Map[ShardKey, RealTimeShardOffset]) = {
    val data = Iterator
      .continually(r.nextBefore(deadline))
      .takeWhile(_.hasRecord)
      .map(_ => Row(r.get().getUTF8String(3).toString, new String(r.get().getBinary(1), UTF_8)))
      .toVector
    r.close()
    (data, offsets(r))
  }

  private def offsets(r: RealTimeReader): Map[ShardKey, RealTimeShardOffset] =
    r.getOffset().asInstanceOf[RealTimeTaskOffset].shards.map(o => o.shard -> o).toMap

  /** One shard's: its records' data, and its offset. */
  private def readUntil(r: RealTimeReader, deadline: Long): (Seq[String], RealTimeShardOffset) = {
    val (rows, reached) = readAll(r, deadline)
    (rows.map(_.data), reached.values.head)
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

  test("a record without a partition key is handed on with a null key, the records after it too") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    api.put("s", shard, "keyless", partitionKey = null)
    api.put("s", shard, "keyed", partitionKey = "k")
    val r = reader(api, clock, shard, ShardPosition.TrimHorizon)
    val deadline = clock.nowMillis() + 1000
    val keys = Iterator
      .continually(r.nextBefore(deadline))
      .takeWhile(_.hasRecord)
      .map(_ => (Option(r.get().getUTF8String(0)).map(_.toString), new String(r.get().getBinary(1), UTF_8)))
      .toVector
    r.close()
    assert(keys == Vector((None, "keyless"), (Some("k"), "keyed")))
  }

  test("records of up to 10 MiB among small ones are handed on whole, in order") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    val MiB = 1024 * 1024
    val sizes = Seq(10, 2 * MiB, 100, 10 * MiB - 2, 5 * MiB, 1)
    val written = sizes.zipWithIndex.map { case (size, i) => Array.fill[Byte](size)((i + 1).toByte) }
    written.foreach(data => api.putBytes("s", shard, data, partitionKey = "pk"))
    val r = reader(api, clock, shard, ShardPosition.TrimHorizon)
    val deadline = clock.nowMillis() + 60000
    val read =
      Iterator.continually(r.nextBefore(deadline)).takeWhile(_.hasRecord).map(_ => r.get().getBinary(1)).toVector
    r.close()
    assert(read.map(_.length) == sizes)
    assert(read.zip(written).forall { case (a, b) => java.util.Arrays.equals(a, b) })
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
    val offset = offsets(first).values.head
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

  // A task of several shards reads them on threads, which sleep for real: its tests use the system's clock,
  // the fake Kinesis the manual one for its records' arrival times.
  test("an outage longer than outageTimeout fails a real-time task with KINESIS_UNAVAILABLE, as in every mode") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(shard) = api.createStream("s", 1)
    api.down = true
    val patient = config.copy(outageTimeoutMs = Some(60000))
    val r = new RealTimeReader(
      RealTimeInputPartition(Seq(RealTimeShard(ShardKey("s", shard), ShardPosition.TrimHorizon)), null, patient),
      api,
      clock)
    val started = clock.nowMillis()
    val error = intercept[KinesisThrowable](r.nextBefore(started + 10 * 60000))
    assert(error.getCondition == "KINESIS_UNAVAILABLE", error)
    assert(clock.nowMillis() - started >= 60000 && clock.nowMillis() - started < 2 * 60000, "given up at the timeout")
  }

  test("a task of several shards hands on each shard's records in order, and where it left each") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val ids = api.createStream("s", 3)
    val seqs = ids.map(id => id -> (1 to 4).map(i => api.put("s", id, s"$id-$i"))).toMap
    val r = readerOf(api, SystemClock, ids.map(id => RealTimeShard(ShardKey("s", id), ShardPosition.TrimHorizon)): _*)
    val (rows, reached) = readAll(r, System.currentTimeMillis() + 1500)
    ids.foreach { id =>
      assert(rows.filter(_.shardId == id).map(_.data) == (1 to 4).map(i => s"$id-$i"), s"$id: each record, in order")
      assert(reached(ShardKey("s", id)).position == ShardPosition.After(seqs(id).last))
    }
    assert(rows.size == 12)
  }

  test("a task stopped by its deadline reports only the records it handed on; the next task goes on from there") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val ids = api.createStream("s", 3)
    ids.foreach(id => (1 to 50).foreach(i => api.put("s", id, s"$id-$i")))
    val shards = ids.map(id => RealTimeShard(ShardKey("s", id), ShardPosition.TrimHorizon))
    val first = readerOf(api, SystemClock, shards: _*)
    val deadline = System.currentTimeMillis() + 60000
    // Spark stops asking when the deadline passes: here after 20 records, with more read and not handed on.
    val handed = (1 to 20).map { _ =>
      assert(first.nextBefore(deadline).hasRecord)
      Row(first.get().getUTF8String(3).toString, new String(first.get().getBinary(1), UTF_8))
    }
    assert(!first.nextBefore(System.currentTimeMillis()).hasRecord, "nothing once the deadline has passed")
    val reached = offsets(first)
    first.close()
    val (rest, _) =
      readAll(
        readerOf(api, SystemClock, shards.map(s => s.copy(from = reached(s.key).position)): _*),
        System.currentTimeMillis() + 1500)
    ids.foreach { id =>
      val all = (handed ++ rest).filter(_.shardId == id).map(_.data)
      assert(all == (1 to 50).map(i => s"$id-$i"), s"$id: every record once, in order")
    }
  }

  test("in a task of several shards, a closed one read to its end reports its end and the others go on") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val Seq(open, closing) = api.createStream("s", 2)
    api.put("s", closing, "last of the parent")
    api.split("s", closing)
    val r = readerOf(
      api,
      SystemClock,
      Seq(open, closing).map(id => RealTimeShard(ShardKey("s", id), ShardPosition.TrimHorizon)): _*)
    val deadline = System.currentTimeMillis() + 1500
    assert(r.nextBefore(deadline).hasRecord)
    val later = api.put("s", open, "later")
    val (rows, reached) = readAll(r, deadline)
    assert(rows.map(_.data) == Seq("later"))
    assert(reached(ShardKey("s", closing)).position == ShardPosition.ShardEnd)
    assert(reached(ShardKey("s", open)).position == ShardPosition.After(later))
  }

  test("a failure that trying again cannot mend, in any shard of a task, fails the task") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val ids = api.createStream("s", 2)
    api.deleteStream("s")
    val r = readerOf(api, SystemClock, ids.map(id => RealTimeShard(ShardKey("s", id), ShardPosition.TrimHorizon)): _*)
    val error = intercept[Exception](r.nextBefore(System.currentTimeMillis() + 1500))
    r.close()
    assert(error.isInstanceOf[KinesisThrowable], error)
  }

  test("under efo, records come through the consumer's subscription, which is left open for the next batch") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val stream = s"efo-${UUID.randomUUID()}" // subscriptions left open wait in a pool of the JVM's
    val Seq(shard) = api.createStream(stream, 1)
    val consumer = ConsumerRegistration.activate(api, stream, api.describeStream(stream).arn, "c", clock).arn
    val seqs = (1 to 3).map(i => api.put(stream, shard, s"r$i"))
    val key = ShardKey(stream, shard)
    val first = readerOf(api, clock, RealTimeShard(key, ShardPosition.TrimHorizon, Some(consumer)))
    val (data, offset) = readUntil(first, clock.nowMillis() + 1000)
    assert(data == Seq("r1", "r2", "r3") && offset.position == ShardPosition.After(seqs.last))
    assert(api.calls("SubscribeToShard") == 1 && api.calls("GetRecords") == 0, api.calls)
    assert(api.openSubscriptions == 1, "left open")
    api.put(stream, shard, "r4")
    val (next, _) =
      readUntil(readerOf(api, clock, RealTimeShard(key, offset.position, Some(consumer))), clock.nowMillis() + 1000)
    assert(next == Seq("r4"))
    assert(api.calls("SubscribeToShard") == 1, "the next batch went on with the subscription left open")
  }

  test("a consumer deregistered during a batch: its shard is polled for the rest of it, nothing lost or repeated") {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val stream = s"efo-${UUID.randomUUID()}"
    val Seq(shard) = api.createStream(stream, 1)
    val arn = api.describeStream(stream).arn
    val consumer = ConsumerRegistration.activate(api, stream, arn, "c", clock).arn
    (1 to 2).foreach(i => api.put(stream, shard, s"r$i"))
    val r = readerOf(api, clock, RealTimeShard(ShardKey(stream, shard), ShardPosition.TrimHorizon, Some(consumer)))
    val deadline = clock.nowMillis() + 5000
    val before = (1 to 2).map { _ =>
      assert(r.nextBefore(deadline).hasRecord)
      new String(r.get().getBinary(1), UTF_8)
    }
    api.deregisterConsumer(arn, "c")
    val last = api.put(stream, shard, "r3")
    val (after, offset) = readUntil(r, deadline)
    assert(before ++ after == Seq("r1", "r2", "r3"))
    assert(offset.position == ShardPosition.After(last))
    assert(api.calls("GetRecords") > 0, "polled once the consumer was gone")
    assert(offset.consumerGone, "the driver is told, to register the consumer again")
  }
}

object RealTimeReaderSuite {
  private final case class Row(shardId: String, data: String)
}
