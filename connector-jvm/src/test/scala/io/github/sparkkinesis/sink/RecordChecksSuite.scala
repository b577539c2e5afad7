// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.config.NullDataPolicy
import org.scalatest.funsuite.AnyFunSuite

class RecordChecksSuite extends AnyFunSuite {

  private val MiB = 1024 * 1024

  /** What a stream says of its largest record: 1 MiB, as every stream unless raised. */
  private def limit(bytes: Long, described: Boolean = true): (String, Long) => (Long, Boolean) =
    (_, _) => (bytes, described)
  private val OneMiB = limit(MiB)

  private def check(
      key: String,
      data: Array[Byte],
      hashKey: Option[String] = None,
      nullData: NullDataPolicy = NullDataPolicy.Fail,
      recordLimit: (String, Long) => (Long, Boolean) = OneMiB,
      row: String = "row 7") =
    RecordChecks.check("s", key, data, hashKey, nullData, row, recordLimit)

  private def problem(
      key: String,
      data: Array[Byte],
      hashKey: Option[String] = None,
      recordLimit: (String, Long) => (Long, Boolean) = OneMiB): String =
    intercept[IllegalArgumentException](check(key, data, hashKey, recordLimit = recordLimit)).getMessage

  private val bytes = "x".getBytes(UTF_8)

  test("a good record passes as it is") {
    val r = check("k" * 256, bytes, Some("340282366920938463463374607431768211455"))
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
    assert(check(new String(Character.toChars(0x1f600)) * 128, bytes).isDefined)
    assert(problem("k" * 257, bytes).startsWith("[KINESIS_BAD_RECORD]") && problem("", bytes).endsWith("row 7"))
  }

  test("a record larger than its stream takes, data and partition key together, is refused with the limit") {
    val data = new Array[Byte](MiB - 2)
    assert(check("ab", data).isDefined)
    val refused = problem("abc", data)
    assert(refused.startsWith("[KINESIS_BAD_RECORD]") && refused.endsWith("row 7"))
    assert(
      refused.contains(
        "its data and partitionKey take 1048577 bytes; stream 's' takes at most 1048576 bytes per record (its " +
          "MaxRecordSizeInKiB is 1024); raise it (UpdateMaxRecordSize, up to 10240), or write smaller records"))
  }

  test("a stream's raised limit is asked only for a record over 1 MiB, and holds up to 10 MiB") {
    var asked = Seq.empty[Long]
    val tenMiB: (String, Long) => (Long, Boolean) = (_, size) => { asked :+= size; (10L * MiB, true) }
    assert(check("k", new Array[Byte](MiB - 1), recordLimit = tenMiB).isDefined)
    assert(asked.isEmpty, "a record of 1 MiB fits every stream")
    assert(check("k", new Array[Byte](10 * MiB - 1), recordLimit = tenMiB).isDefined)
    assert(asked == Seq(10L * MiB))
    val over = problem("k", new Array[Byte](10 * MiB), recordLimit = tenMiB)
    assert(over.contains("take 10485761 bytes; stream 's' takes at most 10485760 bytes (10 MiB) per record, the most"))
    val unknown = problem("k", new Array[Byte](10 * MiB), recordLimit = limit(10L * MiB, described = false))
    assert(unknown.contains("take 10485761 bytes; Kinesis takes at most 10485760 bytes (10 MiB) per record"))
  }

  test("null data fails by default, or is skipped when the sink is told to") {
    assert(
      problem("k", null).contains("""its data is null; filter such rows out, or set .option("nullData", "skip")"""))
    assert(check("k", null, nullData = NullDataPolicy.Skip).isEmpty)
  }

  test("an explicit hash key must be a decimal number below 2^128") {
    assert(problem("k", bytes, Some("abc")).contains("its explicitHashKey 'abc' is not a decimal number"))
    assert(problem("k", bytes, Some("340282366920938463463374607431768211456")).contains("explicitHashKey"))
    assert(problem("k", bytes, Some("")).contains("explicitHashKey"))
    // Java's digit test takes other scripts' digits; Kinesis does not.
    assert(problem("k", bytes, Some("\u0663\u0664")).contains("is not a decimal number"))
  }
}
