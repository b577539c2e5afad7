// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import io.github.sparkkinesis.errors.KinesisException
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
    val e = intercept[KinesisException](KinesisSourceOffset.fromJson("""{"v":5,"streams":{}}"""))
    assert(e.getMessage.contains("version 5 is newer than this connector understands (4)"))
    assert(e.getMessage.contains("KINESIS_OFFSET_INVALID"))
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
