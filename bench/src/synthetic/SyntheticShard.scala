// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import scala.collection.mutable.ArrayBuffer

/**
 * One shard of a synthetic stream. Its records are numbered from 0: first the stream's generated backlog
 * (a shard the stream was made with has one: each record the same data arrived at a time of its own over the
 * hour before the stream was made); then what PutRecords appended, or, in a stream of `arrivalsPerSecond`,
 * generated records arriving at that rate from the stream's making on (such a stream takes no writes). A record's sequence number is its number,
 * written so that sequence numbers of one shard are 56 digits, as Kinesis', and order as their numbers.
 *
 * A shard is open until a split or merge closes it ([[close]]): it then takes no more records, and its
 * children follow it. Thread-safe.
 *
 * @param parents the shards it was split or merged from: none, one (a split's, or a merge's shard to merge)
 *                or two (and a merge's adjacent shard)
 */
private[bench] final class SyntheticShard(
    val stream: SyntheticStream,
    val index: Int,
    val hashKeys: (BigInt, BigInt),
    val parents: Seq[SyntheticShard] = Nil,
    backlog: Long = 0) {
  import SyntheticShard._

  val id: String = f"shardId-$index%012d"
  val limits: Option[ShardLimits] = if (stream.spec.limits) Some(new ShardLimits()) else None

  private val appended = ArrayBuffer.empty[Appended] // guarded by this
  @volatile private var appendedCount = 0
  @volatile private var closed = false
  @volatile private var childShards: Seq[SyntheticShard] = Nil

  /** Whether a split or merge has closed the shard: it has all the records it will ever have. */
  def isClosed: Boolean = closed

  /** The shards that follow this closed one (none while it is open). */
  def children: Seq[SyntheticShard] = childShards

  /** Closes the shard, which `next` follow: what is appended from now on goes to them. */
  def close(next: Seq[SyntheticShard]): Unit = synchronized {
    childShards = next
    closed = true
  }

  /**
   * The sequence number Kinesis gives a closed shard as the end of its range: above every record of it, and
   * no record's.
   */
  def endingSequenceNumber: Option[String] = if (closed) Some(sequenceNumber(end)) else None

  /** Whether `hashKey` is in the shard's range. */
  def owns(hashKey: BigInt): Boolean = hashKey >= hashKeys._1 && hashKey <= hashKeys._2

  def sequenceNumber(record: Long): String = {
    // Built by hand: a formatter per record would cost the benchmarks' readers a good share of the CPU.
    val number = record.toString
    val out = new java.lang.StringBuilder(56).append(prefix)
    var pad = 48 - number.length
    while (pad > 0) { out.append('0'); pad -= 1 }
    out.append(number).toString
  }

  /** The first 8 of a sequence number's 56 digits: `4` and the shard's index. */
  private val prefix = "4" + ("0" * (7 - index.toString.length)) + index

  /** The number of the record a sequence number of this shard names, or None if it names none of it. */
  def recordOf(sequenceNumber: String): Option[Long] =
    if (sequenceNumber.length != 56 || !sequenceNumber.forall(_.isDigit)) None
    else if (sequenceNumber.substring(1, 8).toInt != index) None
    else Some(sequenceNumber.substring(8).toLong)

  def startingSequenceNumber: String = sequenceNumber(0)

  private val arrivalsPerSecond = stream.spec.arrivalsPerSecond

  /** Whether record `n` is generated (the backlog, or an arrival of a stream of arrivals), not written. */
  private def generated(n: Long): Boolean = n < backlog || arrivalsPerSecond > 0

  /** The number of the next record to arrive: how many the shard has. */
  def end: Long =
    if (arrivalsPerSecond > 0)
      backlog + ((System.currentTimeMillis() - stream.createdAtMs) * arrivalsPerSecond / 1000).toLong
    else backlog + appendedCount

  /** When record `n` (below [[end]]) arrived, in epoch ms. */
  def arrivalMs(n: Long): Long =
    if (n < backlog) stream.createdAtMs - BacklogSpanMs + n * BacklogSpanMs / math.max(1, backlog)
    else if (arrivalsPerSecond > 0) stream.createdAtMs + ((n - backlog) * 1000 / arrivalsPerSecond).toLong
    else synchronized(appended((n - backlog).toInt).arrivalMs)

  /** The first record that arrived at or after `ms`. */
  def firstArrivedAtOrAfter(ms: Long): Long = {
    var (low, high) = (0L, end) // binary search: arrival times never decrease
    while (low < high) {
      val mid = (low + high) >>> 1
      if (arrivalMs(mid) < ms) low = mid + 1 else high = mid
    }
    low
  }

  /** Hands `visit` the data, partition key and arrival time of records `from` until `until` (below [[end]]). */
  def foreachRecord(from: Long, until: Long)(visit: (Array[Byte], String, Long) => Unit): Unit = {
    var n = from
    while (n < until && generated(n)) {
      visit(stream.generatedData, stream.generatedKey, arrivalMs(n))
      n += 1
    }
    if (n < until) {
      val stored = synchronized(appended.slice((n - backlog).toInt, (until - backlog).toInt).toVector)
      stored.foreach(a => visit(a.data, a.partitionKey, a.arrivalMs))
    }
  }

  /** The size of record `n` as Kinesis counts it against the read limit: its data. */
  def dataBytes(n: Long): Int =
    if (generated(n)) stream.generatedData.length else synchronized(appended((n - backlog).toInt).data.length)

  /** Appends a written record and returns its sequence number, or None if the shard was closed meanwhile. */
  def append(data: Array[Byte], partitionKey: String, nowMs: Long): Option[String] = synchronized {
    require(arrivalsPerSecond == 0, s"${stream.spec.name} is a stream of generated arrivals: it takes no writes")
    if (closed) None
    else {
      appended += Appended(data, partitionKey, nowMs)
      appendedCount += 1
      Some(sequenceNumber(backlog + appendedCount - 1))
    }
  }
}

private[bench] object SyntheticShard {
  val BacklogSpanMs: Long = 60L * 60 * 1000

  private final case class Appended(data: Array[Byte], partitionKey: String, arrivalMs: Long)
}
