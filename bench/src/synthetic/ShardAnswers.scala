// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import software.amazon.awssdk.thirdparty.jackson.core.JsonGenerator

/**
 * The parts of answers that GetRecords and SubscribeToShard's events share, in either wire format:
 * records, and the children that follow a closed shard read to its end.
 */
private[synthetic] object ShardAnswers {

  /** How many of a shard's records from `from` one answer carries: at most `maxRecords` and `maxBytes` of data. */
  def until(shard: SyntheticShard, from: Long, end: Long, maxRecords: Long, maxBytes: Long): (Long, Long) = {
    var until = from
    var bytes = 0L
    while (until < end && until - from < maxRecords && bytes < maxBytes) {
      bytes += shard.dataBytes(until)
      until += 1
    }
    if (bytes > maxBytes && until - from > 1) { until -= 1; bytes -= shard.dataBytes(until) }
    (until, bytes)
  }

  /** The field `Records`: records `from` until `until` of `shard`. */
  def writeRecords(g: JsonGenerator, wire: Wire, shard: SyntheticShard, from: Long, until: Long): Unit = {
    g.writeFieldName("Records")
    g.writeStartArray()
    var n = from
    shard.foreachRecord(from, until) { (data, partitionKey, arrivalMs) =>
      g.writeStartObject()
      g.writeStringField("SequenceNumber", shard.sequenceNumber(n))
      wire.timestamp(g, "ApproximateArrivalTimestamp", arrivalMs)
      g.writeFieldName("Data")
      g.writeBinary(data)
      if (partitionKey != null) g.writeStringField("PartitionKey", partitionKey)
      g.writeEndObject()
      n += 1
    }
    g.writeEndArray()
  }

  /** The field `ChildShards`: the shards that follow a closed shard, each with its parents and hash keys. */
  def writeChildShards(g: JsonGenerator, shard: SyntheticShard): Unit = {
    g.writeFieldName("ChildShards")
    g.writeStartArray()
    shard.children.foreach { child =>
      g.writeStartObject()
      g.writeStringField("ShardId", child.id)
      g.writeFieldName("ParentShards")
      g.writeStartArray()
      child.parents.foreach(p => g.writeString(p.id))
      g.writeEndArray()
      writeHashKeyRange(g, child)
      g.writeEndObject()
    }
    g.writeEndArray()
  }

  def writeHashKeyRange(g: JsonGenerator, shard: SyntheticShard): Unit = {
    g.writeFieldName("HashKeyRange")
    g.writeStartObject()
    g.writeStringField("StartingHashKey", shard.hashKeys._1.toString)
    g.writeStringField("EndingHashKey", shard.hashKeys._2.toString)
    g.writeEndObject()
  }

  /** How far behind the shard's tip a reader at `position` is. */
  def millisBehind(shard: SyntheticShard, position: Long, end: Long, nowMs: Long): Long =
    if (position >= end) 0L else math.max(0L, nowMs - shard.arrivalMs(position))
}
