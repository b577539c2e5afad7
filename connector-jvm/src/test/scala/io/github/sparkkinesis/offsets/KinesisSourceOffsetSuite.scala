package io.github.sparkkinesis.offsets

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import io.github.sparkkinesis.errors.KinesisConnectorException
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

  test("version 1 is written exactly as the golden file, keys sorted") {
    assert(v1.json == golden("v1.json"))
  }

  test("the golden file of version 1 still reads back to the same positions") {
    assert(KinesisSourceOffset.fromJson(golden("v1.json")) == v1)
  }

  test("JSON does not depend on the order shards were added") {
    val reversed = KinesisSourceOffset(v1.shards.toSeq.reverse.toMap)
    assert(reversed.json == v1.json)
  }

  test("a newer version fails and says to use a newer connector") {
    val e = intercept[KinesisConnectorException](KinesisSourceOffset.fromJson("""{"v":2,"streams":{}}"""))
    assert(e.getMessage.contains("version 2 is newer"))
    assert(e.getMessage.contains("KINESIS_OFFSET_INVALID"))
  }

  test("malformed offsets fail with an example of the expected form") {
    val bad = Seq(
      "not json" -> "not JSON",
      """{"streams":{}}""" -> "no version",
      """{"v":1}""" -> "no object \"streams\"",
      """{"v":1,"streams":{"s":{"shardId-1":{"kind":"sideways"}}}}""" -> "unknown kind 'sideways'",
      """{"v":1,"streams":{"s":{"shardId-1":{"kind":"after","seq":"12x"}}}}""" -> "not a number",
      """{"v":1,"streams":{"s":{"shardId-1":{"kind":"at_timestamp"}}}}""" -> "no number \"ms\""
    )
    bad.foreach { case (json, problem) =>
      val e = intercept[KinesisConnectorException](KinesisSourceOffset.fromJson(json))
      assert(e.getMessage.contains(problem), e.getMessage)
      assert(e.getMessage.contains("""{"v":1,"streams":"""), e.getMessage)
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
}
