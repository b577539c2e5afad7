// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.config.NullDataPolicy
import org.scalatest.funsuite.AnyFunSuite

class RecordChecksSuite extends AnyFunSuite {

  private def problem(key: String, data: Array[Byte], hashKey: Option[String] = None): String =
    intercept[IllegalArgumentException](RecordChecks.check(key, data, hashKey, NullDataPolicy.Fail, "row 7")).getMessage

  private val bytes = "x".getBytes(UTF_8)

  test("a good record passes as it is") {
    val r =
      RecordChecks.check("k" * 256, bytes, Some("340282366920938463463374607431768211455"), NullDataPolicy.Fail, "")
    assert(
      r.map(x => (x.partitionKey.length, x.explicitHashKey)) == Some(
        (256, Some("340282366920938463463374607431768211455"))))
  }

  test("partition keys must be there and at most 256 characters") {
    assert(problem(null, bytes).contains("its partitionKey is null"))
    assert(problem("", bytes).contains("its partitionKey is empty"))
    assert(problem("k" * 257, bytes).contains("its partitionKey has 257 characters as Kinesis counts them"))
    assert(problem("k" * 257, bytes).contains("Kinesis allows at most 256"))
    // Kinesis counts UTF-16 code units: 200 emoji are 200 code points but 400 units, and Kinesis refuses them.
    val emoji = new String(Character.toChars(0x1f600)) * 200
    assert(problem(emoji, bytes).contains("its partitionKey has 400 characters as Kinesis counts them (UTF-16"))
    assert(
      RecordChecks.check(new String(Character.toChars(0x1f600)) * 128, bytes, None, NullDataPolicy.Fail, "").isDefined)
    assert(problem("k" * 257, bytes).startsWith("[KINESIS_BAD_RECORD]") && problem("", bytes).endsWith("row 7"))
  }

  test("a record of more than 1 MiB, data and partition key together, is refused") {
    val data = new Array[Byte](1024 * 1024 - 2)
    assert(RecordChecks.check("ab", data, None, NullDataPolicy.Fail, "").isDefined)
    assert(problem("abc", data).contains("take 1048577 bytes; Kinesis takes at most 1048576 (1 MiB)"))
  }

  test("null data fails by default, or is skipped when the sink is told to") {
    assert(
      problem("k", null).contains("""its data is null; filter such rows out, or set .option("nullData", "skip")"""))
    assert(RecordChecks.check("k", null, None, NullDataPolicy.Skip, "").isEmpty)
  }

  test("an explicit hash key must be a decimal number below 2^128") {
    assert(problem("k", bytes, Some("abc")).contains("its explicitHashKey 'abc' is not a decimal number"))
    assert(problem("k", bytes, Some("340282366920938463463374607431768211456")).contains("explicitHashKey"))
    assert(problem("k", bytes, Some("")).contains("explicitHashKey"))
  }
}
