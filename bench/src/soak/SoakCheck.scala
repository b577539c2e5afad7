// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import java.io.File

import scala.collection.mutable

/**
 * What a shard of the stream holds at the end, as Kinesis (the synthetic one) says: how many records, which
 * record a sequence number of it names (numbered from 0), and the shards it was split or merged from.
 */
private[soak] final case class ShardTruth(
    id: String,
    records: Long,
    recordOf: String => Option[Long],
    parents: Seq[String])

/**
 * The soak's verdict on one query's output: every record of every shard read exactly once, in order, and a
 * batch run again (after the driver was killed) holding the same records as its first run.
 *
 * In order means: a shard's records come in batches in the order of their sequence numbers, each batch
 * taking on where the one before left off; within a batch, the rows one task read of a shard in order (rows of
 * a shard read by several tasks together make the batch's range, with nothing missing); and no record of a
 * shard comes in a batch before the last record of a shard it was split or merged from.
 */
private[soak] object SoakCheck {

  /** What the check found: rows and batches read, batches run more than once, and what was wrong (if any). */
  final case class Verdict(rows: Long, batches: Int, batchesRunAgain: Int, problems: Seq[String]) {
    def ok: Boolean = problems.isEmpty
  }

  /** At most this many problems of one query are listed: a bug shows in its first few. */
  private val Listed = 20

  def check(output: File, shards: Seq[ShardTruth]): Verdict = {
    val byId = shards.map(s => s.id -> s).toMap
    val next = mutable.Map.empty[String, Long].withDefaultValue(0L) // the record each shard should give next
    val firstBatch = mutable.Map.empty[String, Long] // the batch of a shard's first record
    val lastBatch = mutable.Map.empty[String, Long] // the batch of a shard's last record
    val problems = Vector.newBuilder[String]
    var count = 0
    def problem(text: => String): Unit = if (count < Listed) { problems += text; count += 1 }
    var rows = 0L
    var runAgain = 0
    val runs = SinkOutput.runs(output).groupBy(_.batchId).toSeq.sortBy(_._1)
    runs.foreach { case (batchId, attempts) =>
      val first = attempts.head.rows
      attempts.tail.foreach { again =>
        runAgain += 1
        val records = again.rows.map(r => (r.shardId, r.sequenceNumber)).sorted
        if (records != first.map(r => (r.shardId, r.sequenceNumber)).sorted)
          problem(s"batch $batchId was run again with other records: ${records.size} rows against ${first.size}")
      }
      rows += first.size
      first.groupBy(_.shardId).foreach { case (shardId, shardRows) =>
        byId.get(shardId) match {
          case None => problem(s"batch $batchId: rows of $shardId, which the stream does not have")
          case Some(shard) =>
            val numbers = shardRows.map(r => r.sequenceNumber -> shard.recordOf(r.sequenceNumber))
            numbers.collect { case (seq, None) => seq }.headOption.foreach { seq =>
              problem(s"batch $batchId: $seq is no sequence number of $shardId")
            }
            // In order within what each task read of the shard.
            shardRows.groupBy(_.partition).foreach { case (partition, part) =>
              val ns = part.flatMap(r => shard.recordOf(r.sequenceNumber))
              if (ns != ns.sorted) problem(s"batch $batchId, partition $partition: $shardId's records out of order")
            }
            val sorted = numbers.flatMap(_._2).sorted
            val expected = next(shardId) until next(shardId) + sorted.size
            if (sorted != expected) {
              val lost = expected.headOption.filter(_ => sorted.headOption.exists(_ > expected.head))
              problem(
                s"batch $batchId: $shardId gave records ${sorted.headOption.getOrElse("-")} to " +
                  s"${sorted.lastOption.getOrElse("-")} (${sorted.size} rows, ${sorted.distinct.size} distinct) " +
                  s"where ${expected.head} to ${expected.last} were next" +
                  lost.map(n => s"; from $n lost").getOrElse(""))
            }
            if (sorted.nonEmpty) {
              next(shardId) = sorted.last + 1
              firstBatch.getOrElseUpdate(shardId, batchId)
              lastBatch(shardId) = batchId
            }
        }
      }
    }
    shards.foreach { shard =>
      if (next(shard.id) != shard.records)
        problem(s"${shard.id}: ${next(shard.id)} of its ${shard.records} records read")
      for (parent <- shard.parents; childFirst <- firstBatch.get(shard.id); parentLast <- lastBatch.get(parent))
        if (childFirst < parentLast)
          problem(
            s"${shard.id}'s first record came in batch $childFirst, before its parent $parent's last ($parentLast)")
    }
    Verdict(rows, runs.size, runAgain, problems.result())
  }
}
