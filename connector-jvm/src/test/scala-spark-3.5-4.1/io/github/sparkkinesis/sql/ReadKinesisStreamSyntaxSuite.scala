// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.apache.spark.sql.catalyst.parser.ParseException
import org.scalatest.funsuite.AnyFunSuite

/** Before Spark 4.2, SQL has no `FROM STREAM f(...)`: as the docs say, such a query does not parse. */
class ReadKinesisStreamSyntaxSuite extends AnyFunSuite with SparkStreamingSuite {

  override protected def sparkSettings: Map[String, String] =
    Map("spark.sql.extensions" -> "io.github.sparkkinesis.KinesisSparkExtensions")

  test("FROM STREAM read_kinesis(...) is a syntax error before Spark 4.2; the plain call is a batch read") {
    intercept[ParseException](spark.sql("SELECT * FROM STREAM read_kinesis(streamName => 's', region => 'r')"))
    assert(!spark.sql("SELECT * FROM read_kinesis(streamName => 's', region => 'r')").isStreaming)
  }
}
