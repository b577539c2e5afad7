// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, ShardKey, ShardPosition}
import org.scalatest.funsuite.AnyFunSuite

class KinesisBatchReadConfigSuite extends AnyFunSuite {
  private val base = Map("streamName" -> "orders", "region" -> "eu-west-1")

  private def parse(options: (String, String)*) = KinesisBatchReadConfig(base ++ options, () => None)

  private def refusal(options: (String, String)*): String =
    intercept[KinesisIllegalArgumentException](parse(options: _*)).getMessage

  private def offset(positions: (String, ShardPosition)*): String =
    KinesisSourceOffset(positions.map { case (id, p) => ShardKey("orders", id) -> p }.toMap).json

  test("a batch read starts at trim_horizon and ends at latest unless told otherwise") {
    val config = parse()
    assert(config.start == InitialPosition.TrimHorizon && config.end == EndPosition.Latest)
    assert(parse("initialPosition" -> "latest").start == InitialPosition.Latest)
    assert(config.description == "KinesisBatch[orders]")
  }

  test("endPosition: latest, an instant, or a query's offset; never trim_horizon") {
    assert(
      parse("endPosition" -> """{"at_timestamp": "2020-06-25T17:23:45Z"}""").end ==
        EndPosition.AtTimestamp(1593105825000L))
    val json = offset("shardId-000000000000" -> ShardPosition.After("4960"))
    assert(parse("endPosition" -> json).end == EndPosition.AtOffset(KinesisSourceOffset.fromJson(json)))
    assert(parse("initialPosition" -> json).start == InitialPosition.AfterOffset(KinesisSourceOffset.fromJson(json)))
    Seq("trim_horizon", "yesterday", """{"v":2}""").foreach { value =>
      val message = refusal("endPosition" -> value)
      assert(message.contains("KINESIS_OPTION_INVALID") && message.contains("endPosition"), message)
    }
  }

  test("an end before the start is refused where the two say so: two instants, or two offsets") {
    assert(
      refusal(
        "initialPosition" -> """{"at_timestamp": "2020-06-25T17:23:45Z"}""",
        "endPosition" -> """{"at_timestamp": "2020-06-25T17:00:00Z"}""").contains("before initialPosition"))
    val later = offset("shardId-000000000000" -> ShardPosition.After("4965"))
    val earlier = offset("shardId-000000000000" -> ShardPosition.After("4961"))
    assert(refusal("initialPosition" -> later, "endPosition" -> earlier).contains("shardId-000000000000"))
    assert(
      refusal("initialPosition" -> offset("shardId-000000000000" -> ShardPosition.ShardEnd), "endPosition" -> later)
        .contains("before initialPosition"))
    parse("initialPosition" -> earlier, "endPosition" -> later)
    parse("initialPosition" -> earlier, "endPosition" -> earlier)
  }

  test("a streaming read's own options, and enhanced fan-out, are refused, saying why") {
    KinesisOptions.NotInBatchRead.foreach { case (option, _) =>
      val message = refusal(option.key -> option.example)
      assert(message.contains("KINESIS_OPTION_NOT_IN_BATCH_READ") && message.contains(option.key), message)
    }
    assert(refusal("consumerMode" -> "efo").contains("consumerMode"))
    parse("consumerMode" -> "polling")
    // As KinesisRelation deals the ranges: in turn, among Spark's default parallelism or maxPartitions tasks.
    assert(
      refusal("shardsPerTask" -> "4").contains("deals its shards' ranges in turn among as many tasks as the " +
        "application has cores; maxPartitions sets how many"))
  }

  test("maxPartitions bounds a batch read's tasks") {
    assert(parse().maxPartitions.isEmpty)
    assert(parse("maxPartitions" -> "3").maxPartitions.contains(3))
    assert(refusal("maxPartitions" -> "0").contains("'maxPartitions'"))
  }

  test("an offset of another stream is refused, naming the stream") {
    val other = KinesisSourceOffset(Map(ShardKey("payments", "shardId-000000000000") -> ShardPosition.TrimHorizon)).json
    val message = refusal("initialPosition" -> other)
    assert(message.contains("payments") && message.contains("initialPosition"), message)
  }

  private val seqs =
    """{"at_sequence_number": {"orders": {"shardId-000000000000": "4960"}}, """ +
      """"after_sequence_number": {"orders": {"shardId-000000000001": "4970"}}}"""

  test("initialPosition takes sequence numbers per shard, at or after, in a streaming and a batch read alike") {
    val expected = InitialPosition.FromSequenceNumbers(
      Map(
        ShardKey("orders", "shardId-000000000000") -> ShardPosition.At("4960"),
        ShardKey("orders", "shardId-000000000001") -> ShardPosition.After("4970")))
    assert(parse("initialPosition" -> seqs).start == expected)
    assert(KinesisSourceConfig(base + ("initialPosition" -> seqs), () => None).initialPosition == expected)
    val atOnly = """{"at_sequence_number": {"orders": {"shardId-000000000003": "12"}}}"""
    assert(
      parse("initialPosition" -> atOnly).start ==
        InitialPosition.FromSequenceNumbers(Map(ShardKey("orders", "shardId-000000000003") -> ShardPosition.At("12"))))
    assert(expected.toString.contains("orders/shardId-000000000000 at 4960"))
  }

  test("sequence numbers that cannot be are refused at load, naming the option and what is wrong") {
    val bad = Seq(
      """{"at_sequence_number": {"orders": {"shardId-000000000000": 4960}}}""" -> "no sequence number",
      """{"at_sequence_number": {"orders": {"shardId-000000000000": "49x"}}}""" -> "no sequence number",
      """{"at_sequence_number": {"orders": ["shardId-000000000000"]}}""" -> "no object of shards for stream 'orders'",
      """{"at_sequence_number": "4960"}""" -> "must be an object of streams",
      """{"at_sequence_number": {}}""" -> "names no shard",
      """{"at_sequence_number": {"orders": {"shardId-000000000000": "1"}}, "from": 1}""" -> "names \"from\"",
      """{"at_sequence_number": {"orders": {"shardId-000000000000": "1"}}, """ +
        """"after_sequence_number": {"orders": {"shardId-000000000000": "2"}}}""" -> "in both",
      """{"after_sequence_number": {"payments": {"shardId-000000000000": "1"}}}""" -> "stream 'payments'"
    )
    bad.foreach { case (value, problem) =>
      val message = refusal("initialPosition" -> value)
      assert(message.contains("KINESIS_OPTION_INVALID") && message.contains("'initialPosition'"), message)
      assert(message.contains(problem), message)
    }
  }

  test("sequence numbers are no end; an offset end before a sequence number start is refused") {
    val message = refusal("endPosition" -> seqs)
    assert(message.contains("endPosition") && message.contains("not where a read ends"), message)
    val early = offset("shardId-000000000000" -> ShardPosition.After("4959"))
    assert(refusal("initialPosition" -> seqs, "endPosition" -> early).contains("shardId-000000000000"))
    parse("initialPosition" -> seqs, "endPosition" -> offset("shardId-000000000000" -> ShardPosition.After("4960")))
  }

  test("a streaming read refuses endPosition, and starts after a query's offset if told to") {
    val message = intercept[KinesisIllegalArgumentException](
      KinesisSourceConfig(base + ("endPosition" -> "latest"), () => None)).getMessage
    assert(message.contains("KINESIS_OPTION_BATCH_READ_ONLY") && message.contains("AvailableNow"), message)
    val json = offset("shardId-000000000000" -> ShardPosition.After("4960"))
    assert(
      KinesisSourceConfig(base + ("initialPosition" -> json), () => None).initialPosition ==
        InitialPosition.AfterOffset(KinesisSourceOffset.fromJson(json)))
  }

  test("a compact offset (version 5, over CompactAbove shards) is a start and an end as a readable one is") {
    val many = (0 to KinesisSourceOffset.CompactAbove).map { i =>
      ShardKey("orders", f"shardId-$i%012d") -> ShardPosition.After(
        f"49590338271490256608559692538361571095921575989136$i%06d")
    }
    val json = KinesisSourceOffset(many.toMap).json
    assert(json.startsWith("""{"v":5,"streams":{"orders":{"shards":""""), json)
    val offset = KinesisSourceOffset.fromJson(json)
    assert(parse("initialPosition" -> json).start == InitialPosition.AfterOffset(offset))
    assert(parse("endPosition" -> json).end == EndPosition.AtOffset(offset))
    assert(InitialPosition.parse(json) == Right(InitialPosition.AfterOffset(offset)))
    val damaged = json.replace("\":\"", "\":\"x")
    val message = refusal("initialPosition" -> damaged)
    assert(message.contains("stream 'orders' has a damaged string of shards: "), message)
  }
}
