// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

import io.github.sparkkinesis.errors.KinesisException
import io.github.sparkkinesis.testing.SeededProperties
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * Offsets are outside input: Spark hands them back from the checkpoint, and users pass them, edited or not,
 * as `initialPosition`. Every offset the connector writes, in either form (versions 2 to 4, and compact
 * version 5), reads back as it was; anything else is read or refused with `KINESIS_OFFSET_INVALID`, never
 * with another error.
 */
class KinesisSourceOffsetPropertySuite extends AnyFunSuite with SeededProperties {

  private val nameChars = Gen.oneOf(('a' to 'z') ++ ('A' to 'Z') ++ ('0' to '9') ++ Seq('_', '.', '-'))
  private val streams: Gen[String] = Gen.choose(1, 128).flatMap(Gen.listOfN(_, nameChars)).map(_.mkString)

  private val shardIds: Gen[String] = Gen.frequency(
    8 -> Gen.choose(0L, 999999999999L).map(n => f"shardId-$n%012d"),
    1 -> Gen.oneOf("shardId-", "shardId-1", "shardId-0000000000001", "shardId-00000000000x", "ßhard", "\"}{"),
    1 -> Gen.asciiPrintableStr.filter(_.nonEmpty)
  )

  /** Sequence numbers of every length Kinesis may give, 56 digits and more, leading zeros kept as text. */
  private val sequenceNumbers: Gen[String] = Gen.frequency(
    6 -> Gen.listOfN(55, Gen.numChar).map("4" + _.mkString),
    3 -> Gen.choose(1, 128).flatMap(Gen.listOfN(_, Gen.numChar)).map(_.mkString),
    1 -> Gen.oneOf("0", "00", "0" * 56, "9" * 200)
  )

  private val positions: Gen[ShardPosition] = Gen.frequency(
    1 -> Gen.const(ShardPosition.TrimHorizon),
    1 -> Gen.choose(Long.MinValue, Long.MaxValue).map(ShardPosition.AtTimestamp),
    1 -> sequenceNumbers.map(ShardPosition.At),
    4 -> sequenceNumbers.map(ShardPosition.After(_)),
    2 -> Gen.zip(sequenceNumbers, Gen.choose(0L, Long.MaxValue)).map { case (s, sub) =>
      ShardPosition.After(s, Some(sub))
    },
    1 -> Gen.const(ShardPosition.ShardEnd)
  )

  private val offsets: Gen[KinesisSourceOffset] = for {
    names <- Gen.choose(1, 3).flatMap(Gen.listOfN(_, streams)).map(_.distinct)
    shards <- Gen.sequence[Seq[(ShardKey, ShardPosition)], (ShardKey, ShardPosition)](names.map { stream =>
      Gen.zip(shardIds, positions).map { case (id, p) => ShardKey(stream, id) -> p }
    })
    more <- Gen.choose(0, 40).flatMap(n => Gen.listOfN(n, Gen.zip(Gen.oneOf(names), shardIds, positions)))
    identities <- Gen.sequence[Seq[Option[(String, StreamIdentity)]], Option[(String, StreamIdentity)]](names.map {
      stream =>
        Gen.option(Gen.zip(Gen.asciiPrintableStr, Gen.choose(Long.MinValue, Long.MaxValue)).map { case (arn, ms) =>
          stream -> StreamIdentity(arn, ms)
        })
    })
  } yield KinesisSourceOffset(
    (shards ++ more.map { case (s, id, p) => ShardKey(s, id) -> p }).toMap,
    identities.flatten.toMap)

  test("every offset the connector writes, compact or not, reads back as it was") {
    forAll(offsets, Gen.oneOf(0, KinesisSourceOffset.CompactAbove)) { (offset, compactAbove) =>
      val json = KinesisSourceOffset.toJson(offset, compactAbove)
      assert(KinesisSourceOffset.parse(json) == Right(offset), json)
    }
  }

  /** Read, or refused with the offset's own error: nothing else may come out of reading `json`. */
  private def readOrRefused(json: String): Unit = {
    KinesisSourceOffset.parse(json)
    try KinesisSourceOffset.fromJson(json)
    catch {
      case e: KinesisException => assert(e.getMessage.startsWith("[KINESIS_OFFSET_INVALID]"))
    }
  }

  test("an offset cut anywhere, or with any character changed, added or taken out, is read or refused") {
    val edited = for {
      offset <- offsets
      json = KinesisSourceOffset.toJson(offset, KinesisSourceOffset.CompactAbove)
      at <- Gen.choose(0, json.length - 1)
      change <- Gen.oneOf("cut", "replace", "insert", "delete")
      char <- Gen.oneOf(Gen.asciiPrintableChar, Gen.oneOf('\u0663', '\u00e9', '\ud83d', '\u0000'))
      token <- Gen.oneOf("", "1", "-1", "1e400", "2.5", "null", "true", "[]", "{}", "\"x\"", "9" * 30)
    } yield change match {
      case "cut" => json.take(at)
      case "replace" => json.updated(at, char)
      case "insert" => json.take(at) + token + json.drop(at)
      case _ => json.take(at) + json.drop(at + 1)
    }
    forAll(edited)(readOrRefused)
  }

  test("any text, and any JSON of the offset's shape with values of any type, is read or refused") {
    val values = Gen.oneOf("1", "-1", "0", "5", "6", "2.5", "1e400", "null", "true", "\"\"", "\"x\"", "[]", "{}")
    val shaped = for {
      v <- values
      arn <- values
      created <- values
      kind <- Gen.oneOf("\"trim_horizon\"", "\"at_timestamp\"", "\"at\"", "\"after\"", "\"shard_end\"", "\"?\"", "1")
      seq <- Gen.oneOf(
        values,
        Gen.const("\"\u0663\u0664\""),
        Gen.const("\"12a\""),
        sequenceNumbers.map(s => "\"" + s + "\""))
      ms <- values
      sub <- values
      shards <- Gen.oneOf(
        Gen.const(s"""{"shardId-000000000000":{"kind":$kind,"seq":$seq,"ms":$ms,"sub":$sub}}"""),
        Gen.const("\"AAAA\""),
        values)
    } yield s"""{"v":$v,"streams":{"s":{"arn":$arn,"created":$created,"shards":$shards}}}"""
    forAll(Gen.oneOf(shaped, Gen.asciiPrintableStr, Gen.stringOf(Gen.choose(Char.MinValue, Char.MaxValue))))(
      readOrRefused)
  }

  test("a sequence number is ASCII digits only: other digits are refused by name") {
    val offset = """{"v":2,"streams":{"s":{"shards":{"shardId-000000000000":{"kind":"after","seq":"٣٤"}}}}}"""
    assert(
      KinesisSourceOffset.parse(offset) == Left(
        "s/shardId-000000000000 has a sequence number that is not a number: ٣٤"))
  }
}
