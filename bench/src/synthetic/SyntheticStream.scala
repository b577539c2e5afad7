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
 * @param arrivalsPerSecond with more than 0, each shard's generated records go on arriving at this rate from
 *                         the stream's making on, as if written; such a stream takes no writes and is not
 *                         resharded
 * @param keyless          generated records come without a partition key, as a stream whose records Kinesis
 *                         distributes itself (RecordDistributionStrategy AUTO) may return them; such a stream
 *                         says AUTO when described
 * @param maxRecordKiB     the largest record (data and partition key) it takes at first, in KiB, as
 *                         `MaxRecordSizeInKiB` (1,024 to 10,240; UpdateMaxRecordSize changes it)
 */
private[sparkkinesis] final case class StreamSpec(
    name: String,
    shards: Int,
    backlogPerShard: Long = 0,
    recordBytes: Int = 100,
    aggregated: Int = 1,
    limits: Boolean = false,
    arrivalsPerSecond: Double = 0,
    keyless: Boolean = false,
    maxRecordKiB: Int = 1024) {
  require(shards >= 1 && shards <= 9999999, "1 to 9,999,999 shards")
  require(arrivalsPerSecond >= 0, "arrivalsPerSecond is a rate of records a second a shard, 0 for none")
  require(aggregated >= 1, "aggregated is the number of user records in each Kinesis record, at least 1")
  require(StreamSpec.MaxRecordKiB.contains(maxRecordKiB), s"maxRecordKiB is from 1,024 to 10,240, not $maxRecordKiB")
}

private[sparkkinesis] object StreamSpec {

  /** What `MaxRecordSizeInKiB` may be, as Kinesis allows. */
  val MaxRecordKiB: Range = 1024 to 10240
}

/**
 * A stream of the synthetic Kinesis: its shards, open and closed, what every generated record of it looks
 * like, and its enhanced fan-out consumers. Resharding is at once, as if Kinesis' UPDATING took no time: a
 * split or merge closes its parents and opens their children in one step. Thread-safe.
 */
private[bench] final class SyntheticStream(val spec: StreamSpec, val createdAtMs: Long) {
  val arn = s"arn:aws:kinesis:us-east-1:000000000000:stream/${spec.name}"

  /** Its ListShards calls, kept to Kinesis' limit with its `limits`. */
  val listShardsRate = new CallRate(CallRate.ListShardsPerStream)

  /** The data and partition key of every generated record: one array, shared, as data is never changed. */
  val generatedData: Array[Byte] =
    if (spec.aggregated == 1) payload(spec.recordBytes)
    else
      AggregatedRecords.encode(
        (0 until spec.aggregated).map(i => UserRecord(s"user-key-$i", None, payload(spec.recordBytes))))
  val generatedKey: String = if (spec.keyless) null else "generated"

  /** The largest record it takes now, in KiB (`MaxRecordSizeInKiB`). */
  @volatile var maxRecordKiB: Int = spec.maxRecordKiB

  /** The stream's consumers, registered through the API or by a benchmark. */
  val consumers = new SyntheticConsumers(this)

  /** Every shard the stream ever had, by index (a shard's index is its place here); written under the lock. */
  @volatile private var all: Vector[SyntheticShard] = {
    val width = SyntheticStream.HashKeys / spec.shards
    (0 until spec.shards).toVector.map { i =>
      val end = if (i == spec.shards - 1) SyntheticStream.HashKeys - 1 else width * (i + 1) - 1
      new SyntheticShard(this, i, (width * i, end), backlog = spec.backlogPerShard)
    }
  }

  /** The open shards, by their hash key ranges; None while they are the stream's first ones, evenly spread. */
  @volatile private var resharded: Option[Vector[SyntheticShard]] = None

  /** Every shard, open and closed, in the order they were made (as ListShards lists them). */
  def shards: IndexedSeq[SyntheticShard] = all

  /** The shards that take records now. */
  def openShards: IndexedSeq[SyntheticShard] = resharded.getOrElse(all)

  /** The open shard whose hash key range holds `hashKey`. */
  def shardFor(hashKey: BigInt): SyntheticShard = resharded match {
    case None => all((hashKey / (SyntheticStream.HashKeys / spec.shards)).min(BigInt(spec.shards - 1)).toInt)
    case Some(open) =>
      var (low, high) = (0, open.size - 1) // binary search: open ranges are sorted and cover every key
      while (low < high) {
        val mid = (low + high + 1) >>> 1
        if (open(mid).hashKeys._1 <= hashKey) low = mid else high = mid - 1
      }
      open(low)
  }

  /**
   * Splits an open shard at `newStartingHashKey` (by default the middle of its range) into two children,
   * the first below that key, the second from it; returns them.
   */
  def split(shard: SyntheticShard, newStartingHashKey: Option[BigInt] = None): Seq[SyntheticShard] = synchronized {
    require(!shard.isClosed && (shard.stream eq this), s"${shard.id} is not an open shard of ${spec.name}")
    val (first, last) = shard.hashKeys
    val at = newStartingHashKey.getOrElse((first + last + 1) / 2)
    require(at > first && at <= last, s"the new starting hash key $at is not inside ${shard.id}'s range")
    reshard(Seq(shard), Seq((first, at - 1), (at, last)))
  }

  /** Merges two open shards whose hash key ranges are adjacent into one, and returns it. */
  def merge(shard: SyntheticShard, adjacent: SyntheticShard): SyntheticShard = synchronized {
    require(
      Seq(shard, adjacent).forall(s => !s.isClosed && (s.stream eq this)),
      s"${shard.id} and ${adjacent.id} are not open shards of ${spec.name}")
    val Seq(low, high) = Seq(shard, adjacent).sortBy(_.hashKeys._1)
    require(low.hashKeys._2 + 1 == high.hashKeys._1, s"${shard.id} and ${adjacent.id} are not adjacent")
    reshard(Seq(shard, adjacent), Seq((low.hashKeys._1, high.hashKeys._2))).head
  }

  /**
   * Brings the open shards to `target`, from half to double their number, as UpdateShardCount's uniform
   * scaling: splits, each of the widest open shard at its middle, or merges, each of the narrowest pair of
   * adjacent open shards, so that every child has one or two parents as after any split or merge.
   */
  def updateShardCount(target: Int): Unit = synchronized {
    val current = openShards.size
    require(target >= (current + 1) / 2 && target <= current * 2, s"$target shards: from half to double $current")
    def width(s: SyntheticShard) = s.hashKeys._2 - s.hashKeys._1
    while (openShards.size < target) split(openShards.maxBy(width))
    while (openShards.size > target) {
      val (low, high) = openShards.zip(openShards.tail).minBy { case (a, b) => width(a) + width(b) }
      merge(low, high)
    }
  }

  /** Closes `parents` and opens a child for each of `ranges`. Called under the lock. */
  private def reshard(parents: Seq[SyntheticShard], ranges: Seq[(BigInt, BigInt)]): Seq[SyntheticShard] = {
    require(spec.arrivalsPerSecond == 0, s"${spec.name} is a stream of generated arrivals: it is not resharded")
    val children = ranges.zipWithIndex.map { case (range, i) => new SyntheticShard(this, all.size + i, range, parents) }
    val open = (openShards.filterNot(parents.contains) ++ children).sortBy(_.hashKeys._1).toVector
    parents.foreach(_.close(children)) // writes to them wait (SyntheticKinesis retries them) for the children
    all = all ++ children
    resharded = Some(open)
    children
  }

  private def payload(bytes: Int): Array[Byte] = {
    val text = "synthetic kinesis record " * (bytes / 25 + 1)
    text.take(bytes).getBytes(UTF_8)
  }
}

private[bench] object SyntheticStream {
  val HashKeys: BigInt = BigInt(2).pow(128)
}
