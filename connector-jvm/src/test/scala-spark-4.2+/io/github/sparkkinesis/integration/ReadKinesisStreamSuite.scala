// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.errors.KinesisThrowable
import org.apache.spark.sql.{AnalysisException, DataFrame}
import org.apache.spark.sql.catalyst.plans.logical.EventTimeWatermark
import org.apache.spark.sql.catalyst.streaming.{StreamingRelationV2, StreamingSourceIdentifyingName}
import org.scalatest.funsuite.AnyFunSuite

/**
 * `FROM STREAM read_kinesis(...)` (Spark 4.2 and later) against the emulator: the stream that
 * `spark.readStream.format("kinesis")` is, with the same options; its source name; what a stream refuses.
 */
class ReadKinesisStreamSuite extends AnyFunSuite with SourceIntegration {

  override protected def sparkSettings: Map[String, String] =
    Map("spark.sql.extensions" -> "io.github.sparkkinesis.KinesisSparkExtensions")

  private def optionsOf(stream: String): Map[String, String] =
    Map("streamName" -> stream, "endpoint" -> endpoint, "region" -> region) ++ credentialOptions

  private def arguments(stream: String, more: (String, String)*): String =
    (optionsOf(stream).toSeq ++ more)
      .map { case (k, v) => s"$k => '$v'" }
      .mkString(", ")

  private def rows(df: DataFrame): Seq[Seen] = {
    val collector = new BatchCollector
    collector.runAvailableNow(df, newCheckpoint())
    seen(collector.rows)
  }

  test("SELECT * FROM STREAM read_kinesis(...) is the stream readStream gives, read to the end", Integration) {
    val stream = newStream(shards = 2)
    val values = (1 to 60).map(i => s"v$i")
    val written = expected(stream, values, put(stream, values))
    val sql = spark.sql(s"SELECT * FROM STREAM read_kinesis(${arguments(stream, "initialPosition" -> "trim_horizon")})")
    assert(sql.isStreaming)
    assert(sql.schema == read(stream)().schema)
    assert(rows(sql).sortBy(_.seq) == written.sortBy(_.seq))
    assert(rows(read(stream)("initialPosition" -> "trim_horizon")).sortBy(_.seq) == written.sortBy(_.seq))
  }

  test("IDENTIFIED BY names the source as readStream's name(...) does, on or off; WATERMARK applies", Integration) {
    val stream = newStream(shards = 1)
    val evolution = "spark.sql.streaming.queryEvolution.enableSourceEvolution"
    def sqlRead = spark.sql(s"""SELECT * FROM STREAM read_kinesis(${arguments(stream)}) IDENTIFIED BY orders
         |  WATERMARK approximateArrivalTimestamp DELAY OF INTERVAL 1 MINUTE""".stripMargin)
    def apiRead = spark.readStream.format("kinesis").options(optionsOf(stream)).name("orders").load()
    def names(df: DataFrame): Seq[String] = df.queryExecution.analyzed.collect { case r: StreamingRelationV2 =>
      r.productIterator.collect { case n: StreamingSourceIdentifyingName => n.toString }.toSeq
    }.flatten
    val off = (intercept[AnalysisException](sqlRead).getCondition, intercept[AnalysisException](apiRead).getCondition)
    assert(off._1 == off._2, "without source evolution, Spark refuses the name in both")
    spark.conf.set(evolution, "true")
    try {
      assert(sqlRead.isStreaming)
      assert(names(sqlRead) == names(apiRead) && names(sqlRead).exists(_.contains("orders")), names(sqlRead))
      assert(sqlRead.queryExecution.analyzed.exists(_.isInstanceOf[EventTimeWatermark]))
    } finally spark.conf.unset(evolution)
  }

  test("a stream refuses endPosition, which only a batch read takes", Integration) {
    val stream = newStream(shards = 1)
    val refused = intercept[Throwable with KinesisThrowable](
      spark.sql(s"SELECT * FROM STREAM read_kinesis(${arguments(stream, "endPosition" -> "latest")})"))
    assert(refused.getCondition == "KINESIS_OPTION_BATCH_READ_ONLY", refused.getMessage)
  }
}
