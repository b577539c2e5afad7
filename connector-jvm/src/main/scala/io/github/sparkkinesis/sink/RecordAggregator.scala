// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import scala.collection.mutable

import io.github.sparkkinesis.client.PutRecord
import io.github.sparkkinesis.kpl.{AggregatedRecords, UserRecord}

/**
 * Packs a writing task's records into KPL aggregated records, as the Kinesis Producer Library does: records
 * bound for the same shard (by the stream's [[ShardMap]]) go into one aggregate of at most `maxBytes` (its
 * data and partition key). An aggregate takes its first record's partition key and that record's hash key
 * as its explicit hash key, so it lands in the shard its records would have gone to one by one; records of
 * one partition key stay together and in order. A shard's aggregate is handed to `send` when the next
 * record does not fit, and all of them by [[flush]]. An aggregate of one record is sent as that plain
 * record; so is a record too large to share an aggregate. Not thread-safe: one task's thread uses it.
 *
 * @param send takes the stream, the Kinesis record, how many rows it carries and the number of its first row
 */
private[sparkkinesis] final class RecordAggregator(
    maxBytes: Long,
    shardMap: String => ShardMap,
    send: (String, PutRecord, Int, Long) => Unit) {

  private final class Pending(val first: PutRecord, val firstRow: Long) {
    val records = mutable.ArrayBuffer.empty[UserRecord]
    val size = new AggregatedRecords.SizeTracker
    val keyBytes: Long = RecordSender.sizeOf(first) - first.data.length
  }

  private val pending = mutable.LinkedHashMap.empty[(String, String), Pending]
  private val maps = mutable.Map.empty[String, ShardMap]

  /** Adds the record of row number `row`. */
  def add(stream: String, record: PutRecord, row: Long): Unit = {
    val hashKey = ShardMap.hashKeyOf(record.partitionKey, record.explicitHashKey)
    val shard = (stream, maps.getOrElseUpdate(stream, shardMap(stream)).shardOf(hashKey))
    val user = UserRecord(record.partitionKey, record.explicitHashKey, record.data)
    if (pending.get(shard).exists(p => p.size.bytesWith(user) + p.keyBytes > maxBytes)) emit(shard)
    val open =
      pending.getOrElseUpdate(shard, new Pending(record.copy(explicitHashKey = Some(hashKey.toString)), row))
    if (open.records.isEmpty && open.size.bytesWith(user) + open.keyBytes > maxBytes) {
      pending.remove(shard)
      send(stream, record, 1, row)
    } else {
      open.records += user
      open.size.add(user)
    }
  }

  /** Hands every open aggregate to `send`. */
  def flush(): Unit = pending.keys.toSeq.foreach(emit)

  private def emit(shard: (String, String)): Unit = pending.remove(shard).foreach { p =>
    val (stream, _) = shard
    p.records.toSeq match {
      case Seq() => ()
      case Seq(only) => send(stream, PutRecord(only.partitionKey, only.data, only.explicitHashKey), 1, p.firstRow)
      case many => send(stream, p.first.copy(data = AggregatedRecords.encode(many)), many.size, p.firstRow)
    }
  }
}
