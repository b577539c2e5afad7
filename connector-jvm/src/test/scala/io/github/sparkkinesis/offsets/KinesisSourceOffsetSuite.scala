// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import scala.util.Random

import io.github.sparkkinesis.errors.{KinesisErrors, KinesisException}
import org.scalatest.funsuite.AnyFunSuite

class KinesisSourceOffsetSuite extends AnyFunSuite {

  private def golden(name: String): String =
    new String(Files.readAllBytes(Paths.get(getClass.getResource(s"/offsets/$name").toURI)), StandardCharsets.UTF_8)

  private val v1 = KinesisSourceOffset(
    Map(
      ShardKey("orders", "shardId-000000000000") -> ShardPosition.AtTimestamp(1593105825000L),
      ShardKey("clicks", "shardId-000000000002") -> ShardPosition.TrimHorizon,
      ShardKey("clicks", "shardId-000000000001") ->
        ShardPosition.After("49600000000000000000000000000000000000000000000000000123"),
      ShardKey("clicks", "shardId-000000000000") -> ShardPosition.ShardEnd
    )
  )

  private val v2 = v1.copy(identities =
    Map("clicks" -> StreamIdentity("arn:aws:kinesis:us-east-1:123456789012:stream/clicks", 1593100000000L)))

  /** A batch ended inside a KPL aggregated record: its user records up to the fourth were read. */
  private val v3 = v2.copy(shards = v2.shards ++ Map(
    ShardKey("clicks", "shardId-000000000001") ->
      ShardPosition.After("49600000000000000000000000000000000000000000000000000123", Some(3L))))

  /** A shard starts at a record a user named (initialPosition at_sequence_number) and is not read yet. */
  private val v4 = v3.copy(shards = v3.shards ++ Map(
    ShardKey("orders", "shardId-000000000001") ->
      ShardPosition.At("49600000000000000000000000000000000000000000000000000777")))

  test("version 2 is written exactly as the golden file, keys sorted, identities where known") {
    assert(v2.json == golden("v2.json"))
  }

  test("an offset inside a KPL aggregate is version 3 and carries the sub-sequence number; others stay version 2") {
    assert(v3.json == golden("v3.json"))
  }

  test("a shard starting at a named record makes the offset version 4, inside an aggregate elsewhere or not") {
    assert(v4.json == golden("v4.json"))
    val atOnly = KinesisSourceOffset(Map(ShardKey("s", "shardId-1") -> ShardPosition.At("12")))
    assert(atOnly.json == """{"v":4,"streams":{"s":{"shards":{"shardId-1":{"kind":"at","seq":"12"}}}}}""")
    assert(KinesisSourceOffset.fromJson(atOnly.json) == atOnly)
  }

  test("the golden files of every version read back to the same positions") {
    assert(KinesisSourceOffset.fromJson(golden("v4.json")) == v4)
    assert(KinesisSourceOffset.fromJson(golden("v3.json")) == v3)
    assert(KinesisSourceOffset.fromJson(golden("v2.json")) == v2)
    assert(KinesisSourceOffset.fromJson(golden("v1.json")) == v1, "version 1 had no identities")
  }

  test("JSON does not depend on the order shards were added") {
    val reversed = KinesisSourceOffset(v2.shards.toSeq.reverse.toMap, v2.identities)
    assert(reversed.json == v2.json)
  }

  test("a stream known only by its identity, without shards yet, is kept") {
    val empty = KinesisSourceOffset(Map.empty, Map("s" -> StreamIdentity("arn:s", 5)))
    assert(empty.json == """{"v":2,"streams":{"s":{"arn":"arn:s","created":5,"shards":{}}}}""")
    assert(KinesisSourceOffset.fromJson(empty.json) == empty)
  }

  test("a newer version fails and says to use a newer connector") {
    val e = intercept[KinesisException](KinesisSourceOffset.fromJson("""{"v":6,"streams":{}}"""))
    assert(e.getMessage.contains("version 6 is newer than this connector understands (5)"))
    assert(e.getMessage.contains("KINESIS_OFFSET_INVALID"))
  }

  /** `n` shards of one stream after sequence numbers as Kinesis gives them: 56 digits, the first few shared. */
  private def manyShards(n: Int, sharedDigits: String, seed: Int = 42): KinesisSourceOffset = {
    val random = new Random(seed)
    def seq() = sharedDigits + Seq.fill(56 - sharedDigits.length)(random.nextInt(10)).mkString
    KinesisSourceOffset(
      (0 until n).map(i => ShardKey("orders", f"shardId-$i%012d") -> ShardPosition.After(seq())).toMap,
      Map("orders" -> StreamIdentity("arn:aws:kinesis:us-east-1:123456789012:stream/orders", 1593100000000L))
    )
  }

  private def bytesPerShard(offset: KinesisSourceOffset, json: String): Double =
    json.getBytes(StandardCharsets.UTF_8).length.toDouble / offset.shards.size

  test("at 10,000 shards the offset written every batch takes at most 40 bytes a shard, and reads back") {
    // How far shards of one stream share their leading digits varies; 2 is the least a 56-digit one has.
    Seq("4959033827149", "49").foreach { shared =>
      val offset = manyShards(10000, shared)
      val json = offset.json
      val compact = bytesPerShard(offset, json)
      val readable = bytesPerShard(offset, KinesisSourceOffset.toJson(offset, compactAbove = Int.MaxValue))
      val line = f"10,000 shards sharing ${shared.length} leading digits: ${json.length} bytes, $compact%.1f a shard " +
        f"(versions 2 to 4: $readable%.1f)"
      info(line)
      println(line)
      val identity = """"arn":"arn:aws:kinesis:us-east-1:123456789012:stream/orders","created":1593100000000"""
      assert(json.startsWith(s"""{"v":5,"streams":{"orders":{$identity,"shards":""""))
      assert(compact <= 40, line)
      assert(KinesisSourceOffset.fromJson(json) == offset)
    }
    val latest =
      KinesisSourceOffset(manyShards(10000, "49").shards.map(_._1 -> ShardPosition.AtTimestamp(1593105825000L)))
    val line = f"10,000 shards at one timestamp (latest): ${bytesPerShard(latest, latest.json)}%.1f bytes a shard"
    info(line)
    println(line)
    assert(KinesisSourceOffset.fromJson(latest.json) == latest)
  }

  test("up to CompactAbove shards the offset stays readable JSON, versions 2 to 4; above, it is version 5") {
    val limit = manyShards(KinesisSourceOffset.CompactAbove, "4959033827149")
    assert(limit.json.startsWith("""{"v":2,""") && limit.json.contains(""""shardId-000000000099":{"kind":"after","""))
    val above = manyShards(KinesisSourceOffset.CompactAbove + 1, "4959033827149")
    assert(above.json.startsWith("""{"v":5,"""))
    assert(KinesisSourceOffset.fromJson(limit.json) == limit && KinesisSourceOffset.fromJson(above.json) == above)
    val four = manyShards(4, "4959033827149")
    val line = f"4 shards: ${bytesPerShard(four, four.json)}%.1f bytes a shard as written (version 2); " +
      f"${bytesPerShard(four, KinesisSourceOffset.toJson(four, compactAbove = 0))}%.1f in version 5's form"
    info(line)
    println(line)
  }

  test("version 5 is written exactly as the golden file, and reads back to the same positions") {
    assert(KinesisSourceOffset.toJson(v4, compactAbove = 0) == golden("v5.json"))
    assert(KinesisSourceOffset.fromJson(golden("v5.json")) == v4)
  }

  test("in version 5 every kind of position, shard id and sequence number reads back as it was") {
    val odd = KinesisSourceOffset(
      v4.shards ++ Map(
        ShardKey("clicks", "shardId-7") -> ShardPosition.After("0"),
        ShardKey("clicks", "shardId-000000000009") -> ShardPosition.After("007", Some(0L)),
        ShardKey("clicks", "shardId-000000000010") -> ShardPosition.At("9" * 129),
        ShardKey("orders", "shardId-000000000002") -> ShardPosition.AtTimestamp(0L),
        ShardKey("orders", "shardId-000000000003") -> ShardPosition.After("1")
      ),
      v4.identities + ("empty" -> StreamIdentity("arn:empty", 5L))
    )
    val json = KinesisSourceOffset.toJson(odd, compactAbove = 0)
    assert(json.startsWith("""{"v":5,"streams":{"clicks":{"arn":"""), json)
    assert(json.contains(""""empty":{"arn":"arn:empty","created":5,"shards":"AAAAAA"}"""), json)
    assert(KinesisSourceOffset.fromJson(json) == odd)
    val reversed = KinesisSourceOffset(odd.shards.toSeq.reverse.toMap, odd.identities)
    assert(KinesisSourceOffset.toJson(reversed, compactAbove = 0) == json, "deterministic")
  }

  test(
    "a big query's checkpoint of version 2, written before version 5, reads as before; its next offset is version 5") {
    val seqs = (0 until 150).map(i => f"4959033827149025660855969253836157109592157598913658$i%04d")
    val literal = """{"v":2,"streams":{"orders":{"arn":"arn:aws:kinesis:us-east-1:123456789012:stream/orders",""" +
      """"created":1593100000000,"shards":{""" +
      seqs.zipWithIndex.map { case (seq, i) => f""""shardId-$i%012d":{"kind":"after","seq":"$seq"}""" }.mkString(",") +
      "}}}}"
    val read = KinesisSourceOffset.fromJson(literal)
    assert(read.shards.size == 150)
    assert(read.shards(ShardKey("orders", "shardId-000000000149")) == ShardPosition.After(seqs(149)))
    assert(read.identities.keySet == Set("orders"))
    assert(read.json.startsWith("""{"v":5,"""))
    assert(KinesisSourceOffset.fromJson(read.json) == read)
    assert(read.json.length * 3 < literal.length, s"${read.json.length} bytes where version 2 took ${literal.length}")
  }

  test("an invalid offset of thousands of shards is shown by its start and its length, not whole") {
    val json = KinesisSourceOffset.toJson(manyShards(10000, "4960"), compactAbove = 0)
    val at = json.indexOf(""""shards":"""") + 100 // a character inside the stream's string of shards
    val damaged = json.updated(at, if (json(at) == 'A') 'B' else 'A')
    val e = intercept[KinesisException](KinesisSourceOffset.fromJson(damaged, " in offsets/7"))
    assert(e.getMessage.contains(s"${damaged.take(KinesisErrors.OffsetShownChars)}... (${damaged.length} characters)"))
    assert(e.getMessage.contains("in offsets/7") && e.getMessage.contains("damaged string of shards"), e.getMessage)
    assert(e.getMessage.length < 2 * KinesisErrors.OffsetShownChars, e.getMessage.length)
  }

  test("a damaged version 5 offset fails as an invalid offset, saying what is wrong") {
    val json = KinesisSourceOffset.toJson(v4, compactAbove = 0)
    val shards = """"shards":"BRQAGAIF2SEu0FmC_PWmjWiOKFRWAAAAAAAAewMQChefrw""""
    assert(json.contains(shards))
    def withShards(text: String) = json.replace(shards, s""""shards":"$text"""")
    val damage = "stream 'clicks' has a damaged string of shards"
    val bad = Seq(
      withShards("BRRAGAIF2SEu0FmC_PWmjWiOKFRWAAAAAAAAewMQChefrw") -> s"$damage: its checksum does not match",
      withShards("BRQAGAIF2SEu0FmC_PWmjWiOKFRWAAAAAAAAewMQCh") -> s"$damage: its checksum does not match",
      withShards("not base64!") -> s"$damage: it is not base64url text",
      json.replace(
        shards,
        """"shards":{}""") -> "stream 'clicks' has no string of shards, which version 5 offsets hold",
      """{"v":5,"streams":{"s":{}}}""" -> "stream 's' has no string of shards"
    )
    bad.foreach { case (offset, problem) =>
      val e = intercept[KinesisException](KinesisSourceOffset.fromJson(offset))
      assert(e.getMessage.contains("KINESIS_OFFSET_INVALID") && e.getMessage.contains(problem), e.getMessage)
      assert(KinesisSourceOffset.parse(offset).left.exists(_.contains(problem)))
    }
  }

  test("malformed offsets fail with an example of the expected form") {
    val bad = Seq(
      "not json" -> "not JSON",
      """{"streams":{}}""" -> "no version",
      """{"v":1}""" -> "no object \"streams\"",
      """{"v":1,"streams":{"s":{"shardId-1":{"kind":"sideways"}}}}""" -> "unknown kind 'sideways'",
      """{"v":1,"streams":{"s":{"shardId-1":{"kind":"after","seq":"12x"}}}}""" -> "not a number",
      """{"v":1,"streams":{"s":{"shardId-1":{"kind":"at_timestamp"}}}}""" -> "no number \"ms\"",
      """{"v":2,"streams":{"s":{"arn":"a","shards":{}}}}""" -> "or neither",
      """{"v":2,"streams":{"s":{"arn":"a","created":1}}}""" -> "no object of shards",
      """{"v":3,"streams":{"s":{"shards":{"shardId-1":{"kind":"after","seq":"12","sub":-1}}}}}""" -> "sub-sequence",
      """{"v":3,"streams":{"s":{"shards":{"shardId-1":{"kind":"at","seq":"12"}}}}}""" -> "only version 4",
      """{"v":4,"streams":{"s":{"shards":{"shardId-1":{"kind":"at","seq":"x"}}}}}""" -> "not a number"
    )
    bad.foreach { case (json, problem) =>
      val e = intercept[KinesisException](KinesisSourceOffset.fromJson(json))
      assert(e.getMessage.contains(problem), e.getMessage)
      assert(e.getMessage.contains("""{"v":2,"streams":"""), e.getMessage)
    }
  }

  test("sequence numbers order numerically, not as text") {
    assert(SequenceNumbers.compare("9", "10") < 0)
    assert(
      SequenceNumbers.compare(
        "49600000000000000000000000000000000000000000000000000124",
        "49600000000000000000000000000000000000000000000000000123"
      ) > 0
    )
    assert(SequenceNumbers.compare("123", "123") == 0)
  }

  test("user records of an aggregate order by sub-sequence number, and all come before the whole record") {
    assert(SequenceNumbers.compare("10", Some(5L), "9", None) > 0)
    assert(SequenceNumbers.compare("10", Some(1L), "10", Some(2L)) < 0)
    assert(SequenceNumbers.compare("10", Some(99L), "10", None) < 0)
    assert(SequenceNumbers.compare("10", None, "10", None) == 0)
  }
}
