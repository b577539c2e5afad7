// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.nio.file.Files
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.streaming.{StreamingQuery, Trigger}
import org.scalatest.{BeforeAndAfterAll, Suite}

/** A local Spark session for a suite, and an idempotent sink that keeps each batch's rows by batch id. */
trait SparkStreamingSuite extends BeforeAndAfterAll { self: Suite =>

  @volatile private var session: SparkSession = _
  def spark: SparkSession = session

  /** The suite's master; `local[2]` unless a suite needs executors of their own. */
  protected def sparkMaster: String = "local[2]"

  /** Settings a suite adds to its session. */
  protected def sparkSettings: Map[String, String] = Map.empty

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    session = SparkSession
      .builder()
      .master(sparkMaster)
      .appName(suiteName)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.driver.host", "127.0.0.1")
      .config("spark.driver.bindAddress", "127.0.0.1")
      .config(sparkSettings)
      .getOrCreate()
  }

  override protected def afterAll(): Unit =
    try {
      if (session != null) {
        session.streams.active.foreach(_.stop())
        session.stop()
      }
    } finally super.afterAll()

  def newCheckpoint(): String = Files.createTempDirectory("kinesis-checkpoint").toString

  /**
   * Collects what a query writes, replacing a batch's rows if Spark writes the batch again: the
   * idempotent sink that exactly-once delivery is judged by.
   */
  final class BatchCollector {
    private val batchRows = new ConcurrentHashMap[Long, Seq[Row]]()

    def start(df: DataFrame, checkpoint: String): StreamingQuery =
      df.writeStream
        .option("checkpointLocation", checkpoint)
        .foreachBatch((batch: DataFrame, id: Long) => record(batch, id))
        .start()

    def record(batch: DataFrame, id: Long): Unit = batchRows.put(id, batch.collect().toSeq)

    /**
     * Runs `df` under Trigger.AvailableNow until it ends by itself (within two minutes), collecting its rows;
     * fails if it does not end, or ends with an error. Returns the ended query, for its progress.
     */
    def runAvailableNow(df: DataFrame, checkpoint: String): StreamingQuery = {
      val query = df.writeStream
        .option("checkpointLocation", checkpoint)
        .trigger(Trigger.AvailableNow())
        .foreachBatch((batch: DataFrame, id: Long) => record(batch, id))
        .start()
      if (!query.awaitTermination(120000)) throw new AssertionError("the AvailableNow run did not end by itself")
      query.exception.foreach(e => throw new AssertionError(s"the AvailableNow run failed: $e", e))
      query
    }

    def rows: Seq[Row] = batches.toSeq.sortBy(_._1).flatMap(_._2)
    def batches: Map[Long, Seq[Row]] = batchRows.asScala.toMap
  }

  /** Waits until `done` holds or `seconds` pass; fails with `what` and the query's error, if any. */
  def eventually(what: String, seconds: Int = 60, query: Option[StreamingQuery] = None)(done: => Boolean): Unit = {
    val deadline = System.nanoTime() + seconds * 1000000000L
    while (!done) {
      query.flatMap(_.exception).foreach(e => throw new AssertionError(s"query failed while waiting for $what", e))
      if (System.nanoTime() > deadline) throw new AssertionError(s"timed out after ${seconds}s waiting for $what")
      Thread.sleep(100)
    }
  }
}
