// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.security.MessageDigest
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.client.{KinesisApi, PutRecord}
import io.github.sparkkinesis.kpl.AggregatedRecords
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.apache.spark.sql.{ForeachWriter, Row}
import org.apache.spark.sql.streaming.Trigger
import org.scalatest.funsuite.AnyFunSuite

/**
 * Real-time mode (`Trigger.RealTime`) on the synthetic Kinesis with a stream's maximum record size raised to
 * 10 MiB: records of 2, 5 and 10 MiB among small ones, and a record that starts like a KPL aggregate and is
 * not, reach the sink whole, each once, polling and through enhanced fan-out.
 */
class RealTimeLargeRecordsSuite extends AnyFunSuite with SparkStreamingSuite {
  import RealTimeLargeRecordsSuite._

  override protected def sparkSettings: Map[String, String] =
    Map("spark.sql.streaming.realTimeMode.minBatchDuration" -> "1000")

  override protected def sparkMaster: String = "local[4]"

  private lazy val kinesis = SyntheticKinesis.start(threads = 4, consumerDelayMs = 200)
  private lazy val writer: KinesisApi = kinesis.connectorClient()

  override protected def afterAll(): Unit =
    try super.afterAll()
    finally {
      writer.close()
      kinesis.close()
    }

  private val MiB = 1024 * 1024

  private val written: Seq[(String, Array[Byte])] = Seq(
    "small-1" -> Array.fill[Byte](100)(1),
    "large-2m" -> Array.fill[Byte](2 * MiB)(2),
    "false-aggregate" -> (AggregatedRecords.Magic ++ Array.fill[Byte](40)(3)),
    "large-10m" -> Array.fill[Byte](10 * MiB - "large-10m".length)(4),
    "large-5m" -> Array.fill[Byte](5 * MiB)(5),
    "small-2" -> Array.fill[Byte](10)(6)
  )

  Seq("polling", "efo").foreach { mode =>
    test(s"records of up to 10 MiB reach a real-time query's sink whole, each once ($mode)") {
      val stream = s"rt-large-${java.util.UUID.randomUUID().toString.take(8)}"
      kinesis.create(StreamSpec(stream, shards = 1, maxRecordKiB = 10240))
      written.foreach { case (key, data) => // one a request: a request takes 10 MiB at most
        assert(writer.putRecords(stream, Seq(PutRecord(key, data))).forall(_.succeeded))
      }
      val sink = java.util.UUID.randomUUID().toString
      val query = spark.readStream
        .format("kinesis")
        .options(kinesis.connectorOptions)
        .options(
          Map(
            "streamName" -> stream,
            "initialPosition" -> "trim_horizon",
            "consumerMode" -> mode,
            "maxFetchRate" -> "2.0"))
        .load()
        .writeStream
        .outputMode("update")
        .option("checkpointLocation", newCheckpoint())
        .trigger(Trigger.RealTime("30 seconds"))
        .foreach(new DigestWriter(sink))
        .start()
      try {
        eventually(s"${written.size} records", 90, Some(query))(delivered(sink).size >= written.size)
        Thread.sleep(1000) // a record handed on twice would show
        assert(delivered(sink) == written.map { case (key, data) => (key, data.length, digest(data)) })
      } finally query.stop()
    }
  }
}

object RealTimeLargeRecordsSuite {

  /** Rows delivered, by sink, batch and partition: key, data length and digest (a partition's last attempt). */
  private val rows = new ConcurrentHashMap[(String, Long, Long), Vector[(String, Int, String)]]()

  def delivered(sink: String): Seq[(String, Int, String)] =
    rows.asScala.toSeq.collect { case ((`sink`, epoch, p), seen) => (epoch, p) -> seen }.sortBy(_._1).flatMap(_._2)

  def digest(data: Array[Byte]): String =
    MessageDigest.getInstance("SHA-256").digest(data).map("%02x".format(_)).mkString

  /** A `foreach` sink keeping each row's key, size and digest, not its megabytes. */
  final class DigestWriter(sink: String) extends ForeachWriter[Row] {
    private var key: (String, Long, Long) = _

    override def open(partitionId: Long, epochId: Long): Boolean = {
      key = (sink, epochId, partitionId)
      rows.put(key, Vector.empty)
      true
    }

    override def process(r: Row): Unit = {
      val data = r.getAs[Array[Byte]]("data")
      rows.compute(key, (_, held) => held :+ ((r.getAs[String]("partitionKey"), data.length, digest(data))))
    }

    override def close(errorOrNull: Throwable): Unit = ()
  }
}
