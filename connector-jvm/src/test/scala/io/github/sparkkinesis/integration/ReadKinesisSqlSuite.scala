// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.time.Instant

import io.github.sparkkinesis.errors.KinesisThrowable
import io.github.sparkkinesis.testing.RecordedKinesisCalls
import org.scalatest.funsuite.AnyFunSuite

/**
 * `SELECT ... FROM read_kinesis(...)` against the emulator: the batch read that `spark.read.format("kinesis")`
 * is, with the same options, written as SQL arguments; time windows; arguments refused before Kinesis is asked.
 */
class ReadKinesisSqlSuite extends AnyFunSuite with SourceIntegration {

  override protected def sparkSettings: Map[String, String] =
    Map("spark.sql.extensions" -> "io.github.sparkkinesis.KinesisSparkExtensions")

  /** The SQL arguments reading `stream` of the emulator, then `more`, each as `key => 'value'`. */
  private def arguments(stream: String, more: (String, String)*): String =
    (Seq("streamName" -> stream, "endpoint" -> endpoint, "region" -> region) ++ credentialOptions ++ more)
      .map { case (k, v) => s"$k => '${v.replace("'", "\\'")}'" }
      .mkString(", ")

  private def at(instant: Instant): String = s"""{"at_timestamp": "$instant"}"""

  test("SELECT * FROM read_kinesis(...) returns every record, as spark.read with the same options", Integration) {
    val stream = newStream(shards = 2)
    val values = (1 to 80).map(i => s"v$i")
    val written = expected(stream, values, put(stream, values))
    val sql = spark.sql(s"SELECT * FROM read_kinesis(${arguments(stream)})")
    assert(!sql.isStreaming)
    assert(sql.schema == batchRead(stream)().schema)
    assert(seen(sql.collect().toSeq).sortBy(_.seq) == written.sortBy(_.seq))
    assert(seen(batchRead(stream)().collect().toSeq).sortBy(_.seq) == written.sortBy(_.seq))

    val more = (81 to 100).map(i => s"v$i")
    val all = written ++ expected(stream, more, put(stream, more))
    val again = spark.sql(s"SELECT * FROM read_kinesis(${arguments(stream, "initialPosition" -> "earliest")})")
    assert(seen(again.collect().toSeq).sortBy(_.seq) == all.sortBy(_.seq), "each query is planned anew")
    val counted =
      spark.sql(s"SELECT partitionKey, count(*) AS n FROM read_kinesis(${arguments(stream)}) GROUP BY partitionKey")
    assert(counted.collect().map(_.getLong(1)).sum == 100)
  }

  test("initialPosition and endPosition as at_timestamp read the records between them", Integration) {
    val stream = newStream(shards = 2)
    put(stream, (1 to 10).map(i => s"before$i"))
    Thread.sleep(1100)
    val from = Instant.now()
    Thread.sleep(1100)
    val inside = (1 to 15).map(i => s"inside$i")
    val written = expected(stream, inside, put(stream, inside))
    Thread.sleep(1100)
    val until = Instant.now()
    Thread.sleep(1100)
    put(stream, (1 to 10).map(i => s"after$i"))
    val window = spark.sql(
      s"SELECT * FROM read_kinesis(${arguments(stream, "initialPosition" -> at(from), "endPosition" -> at(until))})")
    assert(seen(window.collect().toSeq).sortBy(_.seq) == written.sortBy(_.seq))
  }

  test("a bad argument is refused naming it, and Kinesis is not asked", Integration) {
    val stream = newStream(shards = 1)
    val before = RecordedKinesisCalls.snapshot()
    def refusal(query: String): Throwable with KinesisThrowable =
      intercept[Throwable with KinesisThrowable](spark.sql(query))
    val perTrigger = refusal(s"SELECT * FROM read_kinesis(${arguments(stream, "maxRecordsPerTrigger" -> "10")})")
    assert(perTrigger.getCondition == "KINESIS_OPTION_NOT_IN_BATCH_READ", perTrigger.getMessage)
    val bogus = refusal(s"SELECT * FROM read_kinesis(${arguments(stream, "bogus" -> "1")})")
    assert(bogus.getCondition == "KINESIS_FUNCTION_OPTION_UNKNOWN", bogus.getMessage)
    assert(bogus.getMessage.contains("'bogus'") && bogus.getMessage.contains("initialPosition"), bogus.getMessage)
    assert(RecordedKinesisCalls.snapshot() == before, "no Kinesis call for a refused query")
  }
}
