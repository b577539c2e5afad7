// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class SinkColumnsSuite extends AnyFunSuite {

  private def schema(fields: (String, DataType)*) = StructType(fields.map { case (n, t) => StructField(n, t) })

  private def problem(s: StructType, stream: Option[String] = Some("s")): String =
    intercept[KinesisIllegalArgumentException](SinkColumns.resolve(s, stream)).getMessage

  test("data (binary or string) and partitionKey, optionally explicitHashKey and stream, in any order and case") {
    val c = SinkColumns.resolve(schema("PartitionKey" -> StringType, "data" -> BinaryType), Some("s"))
    assert(c == SinkColumns(data = 1, dataIsString = false, partitionKey = 0, explicitHashKey = None, stream = None))
    val all = SinkColumns.resolve(
      schema(
        "stream" -> StringType,
        "data" -> StringType,
        "explicitHashKey" -> StringType,
        "partitionKey" -> StringType),
      None)
    assert(all == SinkColumns(1, dataIsString = true, 3, Some(2), Some(0)))
  }

  test("any other column fails, naming it and listing the accepted ones") {
    val message =
      problem(schema("data" -> BinaryType, "partitionKey" -> StringType, "id" -> LongType, "ts" -> DateType))
    assert(message.startsWith("[KINESIS_SINK_COLUMNS]"), message)
    assert(message.contains("does not take the columns id, ts"), message)
    Seq("data (binary or string)", "partitionKey (string)", "explicitHashKey", "stream (string").foreach { accepted =>
      assert(message.contains(accepted), message)
    }
  }

  test("a missing or mistyped column fails naming it") {
    assert(problem(schema("partitionKey" -> StringType)).contains("no column data"))
    assert(problem(schema("data" -> BinaryType)).contains("no column partitionKey"))
    val typed = problem(schema("data" -> BinaryType, "partitionKey" -> IntegerType))
    assert(typed.contains("column partitionKey is int, not string; cast it"), typed)
    assert(problem(schema("data" -> IntegerType, "partitionKey" -> StringType)).contains("not binary or string"))
    assert(
      problem(schema("data" -> BinaryType, "Data" -> StringType, "partitionKey" -> StringType)).contains("2 columns"))
  }

  test("without a stream column the streamName option is needed") {
    val message = problem(schema("data" -> BinaryType, "partitionKey" -> StringType), stream = None)
    assert(message.contains("streamName") && message.contains("column named stream"), message)
  }
}
