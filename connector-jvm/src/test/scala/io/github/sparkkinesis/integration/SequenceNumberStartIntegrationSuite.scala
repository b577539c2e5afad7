// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import org.scalatest.funsuite.AnyFunSuite

/**
 * `initialPosition` at or after sequence numbers per shard, against the emulator: a stream of two shards,
 * one started at a record and the other after one, read by a streaming query (polling, enhanced fan-out,
 * Trigger.AvailableNow) and by a batch read, each of which must return exactly the records from there on;
 * and a sequence number that is not in its shard, which must fail the read at its start, naming the shard.
 */
class SequenceNumberStartIntegrationSuite extends AnyFunSuite with SourceIntegration {

  /** `{"at_sequence_number": {stream: at}, "after_sequence_number": {stream: after}}`, each left out when empty. */
  private def startAt(stream: String, at: Map[String, String], after: Map[String, String] = Map.empty): String = {
    def shards(named: Map[String, String]) =
      named.map { case (id, seq) => s""""$id": "$seq"""" }.mkString(s"""{"$stream": {""", ", ", "}}")
    Seq("at_sequence_number" -> at, "after_sequence_number" -> after)
      .collect { case (field, named) if named.nonEmpty => s""""$field": ${shards(named)}""" }
      .mkString("{", ", ", "}")
  }

  /**
   * A stream of two shards with 20 records in each; the option that starts the first shard at its 6th
   * record and the second after its 11th; and the records that start reads from there.
   */
  private def twoShards(): (String, String, Seq[Seen]) = {
    val stream = newStream(shards = 2)
    val values = (1 to 80).map(i => s"v$i")
    val written = expected(stream, values, put(stream, values))
    val byShard = written.groupBy(_.shardId).toSeq.sortBy(_._1).map(_._2.sortBy(s => (s.seq.length, s.seq)))
    assert(byShard.size == 2 && byShard.forall(_.size >= 12), byShard.map(_.size))
    val Seq(first, second) = byShard
    val option = startAt(stream, Map(first.head.shardId -> first(5).seq), Map(second.head.shardId -> second(10).seq))
    (stream, option, first.drop(5) ++ second.drop(11))
  }

  private def sorted(rows: Seq[Seen]): Seq[Seen] = rows.sortBy(r => (r.shardId, r.seq.length, r.seq))

  test("a streaming query starts at a record in one shard and after one in the other: exactly those on", Integration) {
    val (stream, option, wanted) = twoShards()
    val collector = new BatchCollector
    val rows =
      runUntil(collector, collector.start(read(stream)("initialPosition" -> option), newCheckpoint()), wanted.size)
    assert(sorted(rows) == sorted(wanted))
  }

  test("enhanced fan-out and Trigger.AvailableNow start there alike", Integration) {
    val (stream, option, wanted) = twoShards()
    val efo = new BatchCollector
    val rows = runUntil(
      efo,
      efo.start(read(stream)("initialPosition" -> option, "consumerMode" -> "efo"), newCheckpoint()),
      wanted.size)
    assert(sorted(rows) == sorted(wanted), "enhanced fan-out")
    val availableNow = new BatchCollector
    availableNow.runAvailableNow(read(stream)("initialPosition" -> option), newCheckpoint())
    assert(sorted(seen(availableNow.rows)) == sorted(wanted), "Trigger.AvailableNow")
  }

  test("a batch read starts there too, and its shards' ends are what had arrived", Integration) {
    val (stream, option, wanted) = twoShards()
    assert(sorted(seen(batchRead(stream)("initialPosition" -> option).collect().toSeq)) == sorted(wanted))
  }

  test("a sequence number not in its shard fails the read at its start, naming the shard", Integration) {
    val stream = newStream(shards = 2)
    val written = expected(stream, Seq("a", "b", "c", "d", "e", "f"), put(stream, Seq("a", "b", "c", "d", "e", "f")))
    val Seq(one, other) = admin.listShards(stream, 100).map(_.shardId).sorted
    // A sequence number of the other shard: not one of this shard's records.
    val foreign = written.find(_.shardId == other).orElse(written.find(_.shardId == one)).get
    val shard = if (foreign.shardId == other) one else other
    val wrong = startAt(stream, Map(shard -> foreign.seq))
    val refused = intercept[KinesisIllegalArgumentException](batchRead(stream)("initialPosition" -> wrong).collect())
    assert(refused.getCondition == "KINESIS_START_NOT_IN_SHARD", refused.getMessage)
    assert(refused.getMessage.contains(s"shard $shard of stream '$stream'"), refused.getMessage)
    assert(refused.getMessage.contains("'initialPosition'"), refused.getMessage)

    val missing = startAt(stream, Map("shardId-000000000099" -> foreign.seq))
    val collector = new BatchCollector
    val query = collector.start(read(stream)("initialPosition" -> missing), newCheckpoint())
    eventually("the query to fail")(query.exception.isDefined)
    val message = query.exception.get.getMessage
    assert(message.contains("KINESIS_START_NOT_IN_SHARD") && message.contains("shardId-000000000099"), message)
    assert(message.contains("lists no such shard"), message)
  }
}
