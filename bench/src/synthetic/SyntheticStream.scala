// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}

/**
 * What a stream of the synthetic Kinesis holds.
 *
 * @param shards           how many open shards, splitting the hash key space evenly
 * @param backlogPerShard  records each shard has from the start, arrived over the hour before it
 * @param recordBytes      the data of each generated user record
 * @param aggregated       how many user records each generated Kinesis record packs as a KPL aggregate (1:
 *                         plain records)
 * @param limits           whether Kinesis' per-shard limits are enforced ([[ShardLimits]])
 */
private[bench] final case class StreamSpec(
    name: String,
    shards: Int,
    backlogPerShard: Long = 0,
    recordBytes: Int = 100,
    aggregated: Int = 1,
    limits: Boolean = false) {
  require(shards >= 1 && shards <= 9999999, "1 to 9,999,999 shards")
  require(aggregated >= 1, "aggregated is the number of user records in each Kinesis record, at least 1")
}

/** A stream of the synthetic Kinesis: its shards and what every generated record of it looks like. */
private[bench] final class SyntheticStream(val spec: StreamSpec, val createdAtMs: Long) {
  val arn = s"arn:aws:kinesis:us-east-1:000000000000:stream/${spec.name}"

  /** The data and partition key of every generated record: one array, shared, as data is never changed. */
  val generatedData: Array[Byte] =
    if (spec.aggregated == 1) payload(spec.recordBytes)
    else
      AggregatedRecords.encode(
        (0 until spec.aggregated).map(i => UserRecord(s"user-key-$i", None, payload(spec.recordBytes))))
  val generatedKey = "generated"

  val shards: IndexedSeq[SyntheticShard] = {
    val width = SyntheticStream.HashKeys / spec.shards
    (0 until spec.shards).map { i =>
      val end = if (i == spec.shards - 1) SyntheticStream.HashKeys - 1 else width * (i + 1) - 1
      new SyntheticShard(this, i, (width * i, end))
    }
  }

  /** The shard whose hash key range holds `hashKey`. */
  def shardFor(hashKey: BigInt): SyntheticShard =
    shards((hashKey / (SyntheticStream.HashKeys / spec.shards)).min(BigInt(spec.shards - 1)).toInt)

  private def payload(bytes: Int): Array[Byte] = {
    val text = "synthetic kinesis record " * (bytes / 25 + 1)
    text.take(bytes).getBytes(UTF_8)
  }
}

private[bench] object SyntheticStream {
  val HashKeys: BigInt = BigInt(2).pow(128)
}
