// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.security.MessageDigest

import scala.collection.mutable

import io.github.sparkkinesis.client.{KinesisRecord, PutRecord, ShardInfo}
import io.github.sparkkinesis.kpl.AggregatedRecords.{Aggregate, Corrupt, Plain}
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.sink.{RecordAggregator, ShardMap}
import io.github.sparkkinesis.testing.SeededProperties
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * A record's data is outside input, and any record may start with the KPL's magic bytes: de-aggregation
 * takes any bytes to a plain record, an aggregate's user records, or a corrupt aggregate passed on whole and
 * counted, never to an error; and what the sink aggregates reads back as the rows it was given.
 */
class AggregatedRecordsPropertySuite extends AnyFunSuite with SeededProperties {

  private val bytes: Gen[Array[Byte]] = Gen.containerOf[Array, Byte](Gen.choose(Byte.MinValue, Byte.MaxValue))

  private val keys: Gen[String] = Gen.frequency(
    3 -> Gen.alphaNumStr.filter(_.nonEmpty).map(_.take(256)),
    1 -> Gen.oneOf("ключ", "キー", "\uD83D\uDD11" * 128, "é" * 256, "k" * 256)
  )

  private val users: Gen[UserRecord] = for {
    key <- keys
    hashKey <- Gen.option(Gen.choose(BigInt(0), ShardInfo.MaxHashKey).map(_.toString))
    data <- bytes
  } yield UserRecord(key, hashKey, data)

  private def framed(body: Array[Byte]): Array[Byte] =
    AggregatedRecords.Magic ++ body ++ MessageDigest.getInstance("MD5").digest(body)

  /**
   * Data that looks like an aggregate as far as each check goes: any bytes; the magic and any bytes; a real
   * aggregate cut, or with bytes changed, its digest made right again so that the protobuf is read.
   */
  private val hostile: Gen[Array[Byte]] = {
    val real = Gen.nonEmptyListOf(users).map(r => AggregatedRecords.encode(r.take(20)))
    Gen.oneOf(
      bytes,
      bytes.map(AggregatedRecords.Magic ++ _),
      bytes.map(framed),
      for {
        aggregate <- real
        body = aggregate.slice(AggregatedRecords.Magic.length, aggregate.length - 16)
        at <- Gen.choose(0, math.max(0, body.length - 1))
        value <- Gen.choose(Byte.MinValue, Byte.MaxValue)
        change <- Gen.oneOf("cut", "set", "digest kept")
      } yield change match {
        case "cut" => framed(body.take(at))
        case "set" => framed(if (body.isEmpty) body else body.updated(at, value))
        case _ => aggregate.updated(math.min(aggregate.length - 1, AggregatedRecords.Magic.length + at), value)
      }
    )
  }

  test("any data decodes as a plain record, an aggregate or a corrupt one, never as an error") {
    forAll(hostile) { data =>
      AggregatedRecords.decode(data) match {
        case Plain | Corrupt(_) => ()
        case Aggregate(records) => assert(records.forall(r => r.partitionKey != null && r.data != null))
      }
    }
  }

  test("de-aggregating any records gives each one back whole, its user records, or a corrupt one counted") {
    val shard = ShardKey("s", "shardId-000000000000")
    forAll(Gen.listOf(hostile)) { datas =>
      val records = datas.zipWithIndex.map { case (d, i) => KinesisRecord("pk", d, (1000 + i).toString, i.toLong) }
      val (out, corrupt) = Deaggregation.userRecords(shard, records, ShardPosition.TrimHorizon)
      val decoded = records.map(r => AggregatedRecords.decode(r.data))
      assert(corrupt == decoded.count(_.isInstanceOf[Corrupt]))
      val expected = records.zip(decoded).flatMap {
        case (r, Aggregate(us)) => us.map(u => (r.sequenceNumber, u.partitionKey, u.data.toSeq))
        case (r, _) => Seq((r.sequenceNumber, r.partitionKey, r.data.toSeq))
      }
      assert(out.map(r => (r.sequenceNumber, r.partitionKey, r.data.toSeq)) == expected)
    }
  }

  test("what the sink aggregates reads back as the rows it was given, each shard's in order") {
    val shards = IndexedSeq(
      ShardInfo("shardId-000000000000", None, None, "0", None, (BigInt(0), ShardInfo.MaxHashKey / 2)),
      ShardInfo("shardId-000000000001", None, None, "0", None, (ShardInfo.MaxHashKey / 2 + 1, ShardInfo.MaxHashKey))
    )
    val map = new ShardMap(shards)
    val rows =
      Gen.listOf(Gen.zip(keys, Gen.option(Gen.choose(BigInt(0), ShardInfo.MaxHashKey)), bytes.map(_.take(3000))))
    forAll(rows, Gen.choose(1024L, 64 * 1024L)) { (given, maxBytes) =>
      val sent = mutable.ArrayBuffer.empty[(PutRecord, Int)]
      val aggregator = new RecordAggregator(maxBytes, _ => map, (_, record, n, _) => sent += ((record, n)))
      given.zipWithIndex.foreach { case ((key, hash, data), i) =>
        aggregator.add("s", PutRecord(key, data, hash.map(_.toString)), i.toLong)
      }
      aggregator.flush()
      val read = sent.toSeq.flatMap { case (record, n) =>
        val users = AggregatedRecords.decode(record.data) match {
          case Aggregate(us) => us.map(u => (u.partitionKey, u.data.toSeq))
          case _ => Seq((record.partitionKey, record.data.toSeq))
        }
        assert(users.size == n, "the rows a record carries")
        val shard = map.shardOf(ShardMap.hashKeyOf(record.partitionKey, record.explicitHashKey))
        users.map(shard -> _)
      }
      def byShard(rows: Seq[(String, (String, Seq[Byte]))]) = rows.groupBy(_._1).map { case (s, r) => s -> r.map(_._2) }
      val expected = given.map { case (key, hash, data) =>
        map.shardOf(ShardMap.hashKeyOf(key, hash.map(_.toString))) -> ((key, data.toSeq))
      }
      assert(byShard(read) == byShard(expected))
    }
  }
}
