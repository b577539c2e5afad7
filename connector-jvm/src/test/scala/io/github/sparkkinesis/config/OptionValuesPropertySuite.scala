// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import io.github.sparkkinesis.testing.SeededProperties
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * Option values are outside input, typed by hand: every option's rule takes any text to a value or to what
 * is wrong with it, never to an error; a value it refuses fails `.load()` with `KINESIS_OPTION_INVALID`
 * naming the option; a value it takes stays within the bounds the rule declares (and the README and the
 * Python package show). A stream ARN is read whole or not at all.
 */
class OptionValuesPropertySuite extends AnyFunSuite with SeededProperties {

  override protected def cases: Int = 100

  private val specs: Seq[OptionSpec[_]] = KinesisOptions.all

  /** Text near what options take: numbers of every form, units, JSON, names, and any text at all. */
  private val values: Gen[String] = {
    val numbers = Gen.oneOf(
      Gen.choose(Long.MinValue, Long.MaxValue).map(_.toString),
      Gen.choose(-1e6, 1e6).map(_.toString),
      Gen.oneOf("0", "-0", "1", "-1", "0.0", "1e3", "1e400", "NaN", "Infinity", "-Infinity", "0x10", "1_000", "1,000"),
      Gen.oneOf("9" * 19, "9" * 40, "\u0663", "１２")
    )
    val units = Gen.oneOf("", "ms", "s", "m", "h", "d", "b", "kb", "mb", "gb", "tb", "KB", "MiB", " s", "sec", "x")
    val json = Gen.oneOf(
      "{}",
      "[]",
      "null",
      """{"at_timestamp": "2024-01-01T00:00:00Z"}""",
      """{"at_sequence_number": {"s": {"shardId-000000000000": "1"}}}""",
      """{"v":2,"streams":{}}""",
      """{"at_sequence_number": {"s": {"shardId-0": "٣"}}}""",
      """{"at_timestamp": 99999999999999999999}"""
    )
    Gen.oneOf(
      Gen.zip(numbers, units).map { case (n, u) => n + u },
      json,
      Gen.oneOf(specs.flatMap(s => s.default.toSeq :+ s.example)).map(v => v + " "),
      Gen.oneOf("true", "false", "TRUE", "yes", "", " ", "latest", "trim_horizon", "efo", "polling", "skip", "fail"),
      Gen.asciiPrintableStr,
      Gen.stringOf(Gen.choose(Char.MinValue, Char.MaxValue))
    )
  }

  test("every option's rule takes any text to a value or to what is wrong with it") {
    forAll(Gen.oneOf(specs), values) { (spec, raw) =>
      spec.parse(raw) match {
        case Left(problem) => assert(problem.nonEmpty)
        case Right(value) => withinBounds(spec, value)
      }
    }
  }

  /** A number a rule takes is within the bounds it declares. */
  private def withinBounds(spec: OptionSpec[_], value: Any): Unit = {
    val bounds = spec.parse.attributes.toMap
    def number(v: Any): Option[Double] = v match {
      case n: Long => Some(n.toDouble)
      case n: Int => Some(n.toDouble)
      case n: Double => Some(n)
      case Some(n) => number(n)
      case _ => None
    }
    number(value).foreach { n =>
      bounds.get("min").flatMap(number).foreach(min => assert(n >= min, s"${spec.key}: $n under $min"))
      bounds.get("max").flatMap(number).foreach(max => assert(n <= max, s"${spec.key}: $n over $max"))
    }
  }

  test("a value an option refuses fails with KINESIS_OPTION_INVALID naming the option, a secret not shown") {
    forAll(Gen.oneOf(specs), values) { (spec, raw) =>
      val parsed = new ParsedOptions(Map(spec.key -> raw))
      try parsed.get(spec)
      catch {
        case e: KinesisIllegalArgumentException =>
          assert(e.getMessage.startsWith(s"[KINESIS_OPTION_INVALID] Option '${spec.key}'"))
          if (spec.secret && raw.trim.length > 3) assert(!e.getMessage.contains(raw.trim))
      }
    }
  }

  test("every option's default and example are values it takes") {
    specs.foreach { spec =>
      spec.default.foreach(d => assert(spec.parse(d).isRight, s"${spec.key}'s default $d"))
      assert(spec.parse(spec.example).isRight, s"${spec.key}'s example ${spec.example}")
    }
  }

  private val arnParts = for {
    partition <- Gen.oneOf("aws", "aws-cn", "aws-us-gov")
    region <- Gen.oneOf("us-east-1", "eu-west-2", "ap-southeast-3", "cn-north-1", "us-gov-west-1")
    account <- Gen.listOfN(12, Gen.numChar).map(_.mkString)
    name <- Gen.choose(1, 128).flatMap(Gen.listOfN(_, Gen.oneOf(Gen.alphaNumChar, Gen.oneOf('_', '.', '-'))))
  } yield (partition, region, account, name.mkString)

  test("a stream ARN reads back its region, account and name; any edit of it is read whole or refused") {
    forAll(arnParts) { case (partition, region, account, name) =>
      val arn = s"arn:$partition:kinesis:$region:$account:stream/$name"
      assert(StreamArn.parse(arn) == Some(StreamArn(arn, region, account, name)))
    }
    val edited = for {
      (partition, region, account, name) <- arnParts
      arn = s"arn:$partition:kinesis:$region:$account:stream/$name"
      at <- Gen.choose(0, arn.length - 1)
      char <- Gen.oneOf(Gen.asciiPrintableChar, Gen.const('\u0663'), Gen.const('/'))
      change <- Gen.oneOf("cut", "replace", "insert")
    } yield change match {
      case "cut" => arn.take(at)
      case "replace" => arn.updated(at, char)
      case _ => arn.take(at) + char + arn.drop(at)
    }
    forAll(Gen.oneOf(edited, Gen.asciiPrintableStr)) { text =>
      StreamArn.parse(text).foreach { arn =>
        assert(text.trim == arn.arn && arn.arn.endsWith(s":${arn.account}:stream/${arn.name}"))
        assert(arn.account.length == 12 && arn.account.forall(c => c >= '0' && c <= '9'))
        assert(KinesisNames.isStream(arn.name))
      }
    }
  }
}
