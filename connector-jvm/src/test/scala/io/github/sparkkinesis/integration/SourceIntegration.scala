// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.client.{PutRecord, PutResult}
import io.github.sparkkinesis.config.{DocsTables, IamPolicies}
import io.github.sparkkinesis.testing.{KinesisEmulator, RecordedKinesisCalls, SparkStatus, SparkStreamingSuite, TestLog}
import io.github.sparkkinesis.testing.MemoryStreams._
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.streaming.StreamingQuery
import org.scalatest.{Suite, Tag}

object Integration extends Tag("integration")

/** What identifies a record, and what it carries. */
final case class Seen(stream: String, shardId: String, seq: String, partitionKey: String, data: String)

/**
 * What the integration suites share: writing records to a stream of the emulator (or KINESIS_ENDPOINT),
 * reading it through Spark, and comparing what arrived with what was written.
 */
trait SourceIntegration extends KinesisEmulator with SparkStreamingSuite { self: Suite =>

  def partitionKeyOf(value: String): String = s"key-${value.hashCode % 17}"

  /** The calls recorded before this suite began: what other suites of the JVM called is theirs to answer for. */
  @volatile private var callsBefore = Map.empty[RecordedKinesisCalls.Call, Long]

  /** Each side's Kinesis actions called since this suite began that its documented IAM policy does not grant. */
  def beyondPolicies: Map[String, Set[String]] = {
    val granted = IamPolicies.documented(DocsTables.credentialsPage(sys.props("kinesis.test.root")))
    RecordedKinesisCalls
      .bySide(since = callsBefore)
      .map { case (side, actions) => side -> (actions -- granted.getOrElse(side, Set.empty)) }
      .filter(_._2.nonEmpty)
  }

  override protected def beforeAll(): Unit = {
    RecordedKinesisCalls.install()
    callsBefore = RecordedKinesisCalls.snapshot()
    super.beforeAll()
  }

  /** Every suite checks, when it is done, that the connector called nothing beyond the documented IAM policies (docs/guides/credentials.md). */
  override protected def afterAll(): Unit =
    try assert(beyondPolicies.isEmpty, "Kinesis actions the documented IAM policies do not grant, by side")
    finally super.afterAll()

  /** Writes the values in order, 500 per call; each value's partition key is [[partitionKeyOf]] it. */
  def put(stream: String, values: Seq[String]): Seq[PutResult] =
    values.grouped(500).toSeq.flatMap { group =>
      val results = admin.putRecords(stream, group.map(v => PutRecord(partitionKeyOf(v), v.getBytes(UTF_8))))
      assert(results.forall(_.succeeded), results.filterNot(_.succeeded))
      results
    }

  /** The options of a write to `stream` (none, to test its absence) of the emulator, and `more`. */
  def sinkOptions(stream: Option[String], more: (String, String)*): Map[String, String] =
    stream.map("streamName" -> _).toMap ++ Map("endpoint" -> endpoint, "region" -> region) ++ credentialOptions ++ more

  /** A streaming query writing what is added to its (partitionKey, data) input to Kinesis. */
  def streamingWrite(options: Map[String, String]): (MemoryStream[(String, String)], StreamingQuery) = {
    val session: SparkSession = spark
    import session.implicits._
    implicit val context: org.apache.spark.sql.SQLContext = session.sqlContext
    val input = MemoryStream[(String, String)]
    val query = input
      .toDF()
      .toDF("partitionKey", "data")
      .writeStream
      .format("kinesis")
      .options(options)
      .option("checkpointLocation", newCheckpoint())
      .start()
    (input, query)
  }

  /** What reaches the emulator's `streams`: their names, where they are, and as whom. */
  private def streamOptions(streams: Seq[String]): Map[String, String] =
    Map("streamName" -> streams.mkString(","), "endpoint" -> endpoint, "region" -> region) ++ credentialOptions

  def read(streams: String*)(options: (String, String)*): DataFrame =
    spark.readStream.format("kinesis").options(streamOptions(streams) ++ options).load()

  /** A batch read (`spark.read`) of the streams of the emulator, with `options`. */
  def batchRead(streams: String*)(options: (String, String)*): DataFrame =
    spark.read.format("kinesis").options(streamOptions(streams) ++ options).load()

  def seen(rows: Seq[Row]): Seq[Seen] = rows.map { r =>
    Seen(
      r.getAs[String]("stream"),
      r.getAs[String]("shardId"),
      r.getAs[String]("sequenceNumber"),
      r.getAs[String]("partitionKey"),
      new String(r.getAs[Array[Byte]]("data"), UTF_8)
    )
  }

  def expected(stream: String, values: Seq[String], results: Seq[PutResult]): Seq[Seen] =
    values.zip(results).map { case (v, r) => Seen(stream, r.shardId.get, r.sequenceNumber.get, partitionKeyOf(v), v) }

  /**
   * The text of everywhere a secret could show: the query's plan and explained plan, its progress reports,
   * an error's stack trace, the SQL UI's data, and the driver's and executors' logs (one file in tests).
   */
  def wherePeopleLook(df: DataFrame, query: StreamingQuery, error: Throwable): Map[String, String] = {
    val uiData = SparkStatus.store(spark).executionsList().flatMap { e =>
      Seq(e.description, e.details, e.physicalPlanDescription)
    }
    val trace = new java.io.StringWriter()
    error.printStackTrace(new java.io.PrintWriter(trace))
    Map(
      "the plan" -> df.queryExecution.toString,
      "the explained plan" -> df.queryExecution.explainString(org.apache.spark.sql.execution.ExtendedMode),
      "the progress" -> query.recentProgress.map(_.json).mkString("\n"),
      "the error" -> trace.toString,
      "the SQL UI" -> uiData.mkString("\n"),
      "the logs" -> TestLog.text()
    )
  }

  /** Waits until `count` rows have arrived and been committed, stops the query, and returns the rows. */
  def runUntil(collector: BatchCollector, query: StreamingQuery, count: Int, seconds: Int = 60): Seq[Seen] = {
    // Spark reports a batch's progress once the batch is committed: wait for that too, so that stopping
    // the query leaves no batch half done (a test that wants one says so).
    eventually(s"$count rows, committed", seconds, Some(query)) {
      collector.rows.size >= count && query.recentProgress.map(_.numInputRows).sum >= count
    }
    query.stop()
    seen(collector.rows)
  }
}
