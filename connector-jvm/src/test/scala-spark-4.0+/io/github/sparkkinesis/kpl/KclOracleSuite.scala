// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.nio.ByteBuffer
import java.security.MessageDigest
import java.time.Instant

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import com.google.protobuf.ByteString
import io.github.sparkkinesis.client.{KinesisRecord, PutRecord, ShardInfo}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.sink.{RecordAggregator, ShardMap}
import io.github.sparkkinesis.testing.SeededProperties
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import software.amazon.kinesis.retrieval.{AggregatorUtil, KinesisClientRecord}
import software.amazon.kinesis.retrieval.kpl.Messages

/**
 * The KPL's aggregated record format against an outside oracle, the Kinesis Client Library's own code (a
 * test-only dependency): what the sink aggregates, the KCL de-aggregates into exactly the records written,
 * and aggregates built with the KCL's protobuf messages, as the KPL builds them, our reader turns into
 * exactly the records put in; both treat records that only look like aggregates alike. On the Spark 4 lines
 * only: the KCL's generated code needs protobuf 4, and Spark 3.5 brings protobuf 3 (the format code is the
 * same in every line's jar).
 */
class KclOracleSuite extends AnyFunSuite with SeededProperties {

  private val shard = ShardKey("s", "shardId-000000000000")

  /** Partition keys drawn from a few, so that aggregates share keys, with non-ASCII and 256-character ones. */
  private val partitionKeys =
    Gen.oneOf(
      Gen.oneOf("a", "key-1", "ключ", "キー", "\uD83D\uDD11", "k" * 256),
      Gen.nonEmptyListOf(Gen.alphaNumChar).map(_.take(40).mkString))

  private val hashKeys =
    Gen.option(Gen.oneOf(Gen.const(ShardInfo.MaxHashKey), Gen.choose(0L, Long.MaxValue).map(BigInt(_))))

  private val userRecord = for {
    key <- partitionKeys
    hash <- hashKeys
    size <- Gen.frequency(8 -> Gen.choose(0, 300), 1 -> Gen.choose(3000, 9000))
    data <- Gen.listOfN(size, Gen.choose(Byte.MinValue, Byte.MaxValue))
  } yield UserRecord(key, hash.map(_.toString), data.toArray)

  private val userRecords = Gen.choose(1, 60).flatMap(n => Gen.listOfN(n, userRecord))

  /** What the KCL makes of one Kinesis record, as the user records it hands to applications. */
  private def kcl(record: PutRecord): Seq[KinesisClientRecord] = {
    val kinesisRecord = KinesisClientRecord
      .builder()
      .partitionKey(record.partitionKey)
      .explicitHashKey(record.explicitHashKey.orNull)
      .sequenceNumber("49600000000000000000000000000000000000000000000000000000")
      .approximateArrivalTimestamp(Instant.ofEpochMilli(1700000000000L))
      .data(ByteBuffer.wrap(record.data))
      .build()
    new AggregatorUtil().deaggregate(java.util.Collections.singletonList(kinesisRecord)).asScala.toSeq
  }

  private def bytes(buffer: ByteBuffer): Array[Byte] = {
    val out = new Array[Byte](buffer.remaining())
    buffer.duplicate().get(out)
    out
  }

  /** Ours: the records the source gives for one Kinesis record, and how many it counted as corrupt. */
  private def ours(data: Array[Byte]): (Seq[KinesisRecord], Int) =
    Deaggregation.userRecords(
      shard,
      Seq(KinesisRecord("outer", data, "49600000000000000000000000000000000000000000000000000000", 0L)),
      ShardPosition.TrimHorizon)

  /** An aggregate built as the KPL builds it: magic bytes, the KCL's protobuf message, its MD5 digest. */
  private def kplAggregate(records: Seq[UserRecord]): Array[Byte] = {
    val keys = records.map(_.partitionKey).distinct
    val hashes = records.flatMap(_.explicitHashKey).distinct
    val message = Messages.AggregatedRecord
      .newBuilder()
      .addAllPartitionKeyTable(keys.asJava)
      .addAllExplicitHashKeyTable(hashes.asJava)
    records.foreach { r =>
      val record = Messages.Record
        .newBuilder()
        .setPartitionKeyIndex(keys.indexOf(r.partitionKey).toLong)
        .setData(ByteString.copyFrom(r.data))
      r.explicitHashKey.foreach(h => record.setExplicitHashKeyIndex(hashes.indexOf(h).toLong))
      message.addRecords(record)
    }
    val body = message.build().toByteArray
    AggregatorUtil.AGGREGATED_RECORD_MAGIC ++ body ++ MessageDigest.getInstance("MD5").digest(body)
  }

  test("what the sink aggregates, the KCL de-aggregates into exactly the records written, in order") {
    val wholeRange =
      new ShardMap(IndexedSeq(ShardInfo(shard.shardId, None, None, "1", None, (BigInt(0), ShardInfo.MaxHashKey))))
    var aggregates = 0
    forAll(userRecords) { written =>
      val sent = ArrayBuffer.empty[(PutRecord, Int)]
      val aggregator = new RecordAggregator(8 * 1024, _ => wholeRange, (_, record, rows, _) => sent += record -> rows)
      written.zipWithIndex.foreach { case (u, row) =>
        aggregator.add("s", PutRecord(u.partitionKey, u.data, u.explicitHashKey), row.toLong)
      }
      aggregator.flush()
      val read = sent.toSeq.flatMap { case (record, rows) =>
        val users = kcl(record)
        assert(users.size == rows, "the KCL finds as many records in each as the sink packed")
        if (rows > 1) assert(users.map(_.subSequenceNumber) == (0L until rows.toLong))
        users.map(u => UserRecord(u.partitionKey, Option(u.explicitHashKey), bytes(u.data)))
      }
      assert(read == written)
      aggregates += sent.count(_._2 > 1)
    }
    assert(aggregates > 0, "the sink packed records into aggregates")
  }

  test("aggregates built as the KPL builds them are read by ours as the KCL reads them") {
    forAll(userRecords) { put =>
      val data = kplAggregate(put)
      assert(AggregatedRecords.decode(data) == AggregatedRecords.Aggregate(put.toIndexedSeq))
      val (records, corrupt) = ours(data)
      assert(corrupt == 0)
      val byKcl = kcl(PutRecord("outer", data))
      assert(
        records.map(r => (r.partitionKey, r.data.toSeq, r.subSequenceNumber)) ==
          byKcl.map(u => (u.partitionKey, bytes(u.data).toSeq, Some(u.subSequenceNumber))))
      assert(byKcl.map(u => Option(u.explicitHashKey)) == put.map(_.explicitHashKey))
    }
  }

  test("our encoder and the KPL's messages write aggregates each reader reads the same") {
    forAll(userRecords) { put =>
      val mine = AggregatedRecords.encode(put)
      val byKcl =
        kcl(PutRecord("outer", mine)).map(u => UserRecord(u.partitionKey, Option(u.explicitHashKey), bytes(u.data)))
      assert(byKcl == put)
      assert(AggregatedRecords.decode(mine) == AggregatedRecords.decode(kplAggregate(put)))
    }
  }

  test("records that only look like aggregates are passed on whole by both, and counted by ours") {
    val valid =
      kplAggregate(Seq(UserRecord("a", None, Array[Byte](1, 2, 3)), UserRecord("b", Some("7"), Array[Byte](4))))
    val badDigest = valid.updated(valid.length - 1, (valid.last ^ 0xff).toByte)
    val truncated = valid.take(AggregatorUtil.AGGREGATED_RECORD_MAGIC.length + 10)
    val magicOnly = AggregatorUtil.AGGREGATED_RECORD_MAGIC.clone()
    val brokenProtobuf = {
      val body = Array[Byte](0x0a, 0x7f, 0x01) // a partition key said to be 127 bytes long, and one byte of it
      AggregatorUtil.AGGREGATED_RECORD_MAGIC ++ body ++ MessageDigest.getInstance("MD5").digest(body)
    }
    for ((what, data, counted) <- Seq(
        ("a wrong digest", badDigest, 1),
        ("a broken protobuf", brokenProtobuf, 1),
        ("too short for a digest", truncated, 0),
        ("the magic bytes alone", magicOnly, 0))) {
      val byKcl = kcl(PutRecord("outer", data))
      val (records, corrupt) = ours(data)
      assert(byKcl.map(u => (u.partitionKey, bytes(u.data).toSeq)) == Seq(("outer", data.toSeq)), what)
      assert(
        records.map(r => (r.partitionKey, r.data.toSeq, r.subSequenceNumber)) == Seq(("outer", data.toSeq, None)),
        what)
      assert(corrupt == counted, what)
    }
  }
}
