// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.mutable

import io.github.sparkkinesis.client.{PutRecord, ShardInfo}
import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}
import org.scalatest.funsuite.AnyFunSuite

/** What the aggregator handed on: a stream, a Kinesis record and the rows in it. */
private final case class Sent(stream: String, record: PutRecord, rows: Int)

class RecordAggregatorSuite extends AnyFunSuite {

  /** Two shards: the lower and the upper half of the hash key space. */
  private val half = ShardInfo.MaxHashKey / 2
  private val map = new ShardMap(
    IndexedSeq(
      ShardInfo("shard-low", None, None, "1", None, (BigInt(0), half)),
      ShardInfo("shard-high", None, None, "1", None, (half + 1, ShardInfo.MaxHashKey))))

  private def aggregator(maxBytes: Long) = {
    val sent = mutable.ArrayBuffer.empty[Sent]
    (new RecordAggregator(maxBytes, _ => map, (s, r, n, _) => sent += Sent(s, r, n)), sent)
  }

  private def record(i: Int, size: Int = 10) =
    PutRecord(s"key-$i", Array.fill(size)('x'.toByte) ++ s"$i".getBytes(UTF_8))

  /** The user records a sent Kinesis record carries. */
  private def users(s: Sent): Seq[UserRecord] = AggregatedRecords.decode(s.record.data) match {
    case AggregatedRecords.Aggregate(records) => records
    case _ => Seq(UserRecord(s.record.partitionKey, s.record.explicitHashKey, s.record.data))
  }

  test("records for the same shard share aggregates, which land in that shard, in order") {
    val (agg, sent) = aggregator(maxBytes = 50 * 1024)
    val records = (1 to 200).map(record(_))
    records.foreach(agg.add("s", _, 0L))
    agg.flush()
    assert(sent.size == 2, "one aggregate per shard")
    sent.foreach { s =>
      val shardOfAggregate = map.shardOf(BigInt(s.record.explicitHashKey.get))
      val inside = users(s)
      assert(s.rows == inside.size)
      assert(inside.forall(u => map.shardOf(ShardMap.hashKeyOf(u.partitionKey, None)) == shardOfAggregate))
      assert(s.record.partitionKey == inside.head.partitionKey)
    }
    val back = sent.flatMap(users).map(u => (u.partitionKey, new String(u.data, UTF_8)))
    assert(back.sorted == records.map(r => (r.partitionKey, new String(r.data, UTF_8))).sorted)
    records.groupBy(r => map.shardOf(ShardMap.hashKeyOf(r.partitionKey, None))).values.foreach { inShard =>
      val order = sent.flatMap(users).map(_.partitionKey).filter(inShard.map(_.partitionKey).toSet)
      assert(order == inShard.map(_.partitionKey), "order kept within a shard")
    }
  }

  test("an aggregate never exceeds maxBytes with its partition key; the next record starts a new one") {
    val (agg, sent) = aggregator(maxBytes = 2048)
    (1 to 300).foreach(i => agg.add("s", record(i, size = 100), i.toLong))
    agg.flush()
    assert(sent.size > 2)
    sent.foreach(s => assert(RecordSender.sizeOf(s.record) <= 2048, s.record))
    assert(sent.map(_.rows).sum == 300)
  }

  test("an explicit hash key places a record; a lone record and an oversized one go as plain records") {
    val (agg, sent) = aggregator(maxBytes = 1024)
    agg.add("s", PutRecord("a", "lone".getBytes(UTF_8), Some("7")), 1L)
    agg.add("s", PutRecord("b", Array.fill(2000)(1.toByte), Some((half + 5).toString)), 2L)
    agg.flush()
    assert(
      sent.map(s => (s.record.partitionKey, s.record.explicitHashKey, s.rows)).toSet ==
        Set(("a", Some("7"), 1), ("b", Some((half + 5).toString), 1)))
    assert(sent.forall(s => !AggregatedRecords.startsWithMagic(s.record.data)))
  }

  test("records of different streams never share an aggregate") {
    val (agg, sent) = aggregator(maxBytes = 50 * 1024)
    Seq("one", "two").foreach(s =>
      (1 to 3).foreach(i => agg.add(s, PutRecord("same", s"$s$i".getBytes(UTF_8)), i.toLong)))
    agg.flush()
    assert(sent.map(s => s.stream -> s.rows).sorted == Seq("one" -> 3, "two" -> 3))
  }

  test("the size tracker agrees with the encoder byte for byte") {
    val tracker = new AggregatedRecords.SizeTracker
    val records = (1 to 500).map { i =>
      UserRecord(s"k${i % 13}" * (i % 50 + 1), if (i % 3 == 0) Some(s"${i % 5}") else None, Array.fill(i * 3)(0))
    }
    records.foreach(tracker.add)
    assert(tracker.bytes == AggregatedRecords.encode(records).length)
  }
}
