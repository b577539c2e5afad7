// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

/**
 * Records without a partition key, as a stream whose records Kinesis distributes itself (on-demand streams
 * with RecordDistributionStrategy AUTO) may return them, on the benchmarks' synthetic Kinesis: each mode
 * reads every record once, as a row whose `partitionKey` is null and whose other columns are whole.
 */
class KeylessRecordsSuite extends AnyFunSuite with SparkStreamingSuite {

  private lazy val kinesis = SyntheticKinesis.start(threads = 4)

  override protected def afterAll(): Unit =
    try super.afterAll()
    finally kinesis.close()

  private val Shards = 2
  private val PerShard = 150
  private val RecordBytes = 40

  private def keylessStream(): String = {
    val name = s"keyless-${java.util.UUID.randomUUID().toString.take(8)}"
    kinesis.create(StreamSpec(name, Shards, backlogPerShard = PerShard, recordBytes = RecordBytes, keyless = true))
    name
  }

  private def options(stream: String): Map[String, String] =
    kinesis.connectorOptions ++ Map("streamName" -> stream, "initialPosition" -> "trim_horizon")

  private def checkRows(rows: Seq[Row], stream: String): Unit = {
    assert(rows.size == Shards * PerShard)
    assert(rows.forall(_.isNullAt(0)), "no record has a partition key")
    assert(rows.forall(r => r.getAs[Array[Byte]]("data").length == RecordBytes && r.getAs[String]("stream") == stream))
    val perShard = rows.groupBy(_.getAs[String]("shardId")).map { case (shard, rs) =>
      shard -> rs.map(_.getAs[String]("sequenceNumber")).distinct.size
    }
    assert(perShard.values.toSet == Set(PerShard), s"every record once: $perShard")
  }

  Seq("polling", "efo").foreach { mode =>
    test(s"a streaming query ($mode) reads keyless records as rows with a null partitionKey") {
      val stream = keylessStream()
      val collector = new BatchCollector
      val query = collector.start(
        spark.readStream.format("kinesis").options(options(stream) + ("consumerMode" -> mode)).load(),
        newCheckpoint())
      try {
        eventually(s"${Shards * PerShard} rows", query = Some(query))(collector.rows.size >= Shards * PerShard)
        checkRows(collector.rows, stream)
      } finally query.stop()
    }
  }

  test("a batch read reads keyless records as rows with a null partitionKey") {
    val stream = keylessStream()
    checkRows(spark.read.format("kinesis").options(options(stream)).load().collect().toSeq, stream)
  }

  test("the sink writes to a stream that places its records itself, and refuses kplAggregation there saying why") {
    val stream = keylessStream()
    val session = spark
    import session.implicits._
    val rows = (1 to 20).map(i => (s"key-$i", s"value-$i")).toDF("partitionKey", "data")
    def write(options: (String, String)*): Unit =
      rows.write
        .format("kinesis")
        .options(kinesis.connectorOptions + ("streamName" -> stream))
        .options(options.toMap)
        .save()
    val refused = intercept[IllegalArgumentException](write("kplAggregation" -> "true"))
    assert(refused.getMessage.contains("[KINESIS_OPTION_INVALID] Option 'kplAggregation' has an invalid value true"))
    assert(refused.getMessage.contains(s"stream '$stream' places its records itself (RecordDistributionStrategy AUTO)"))
    assert(spark.read.format("kinesis").options(options(stream)).load().count() == Shards * PerShard, "nothing sent")
    write()
    val written = spark.read.format("kinesis").options(options(stream)).load().where("partitionKey IS NOT NULL")
    assert(
      written.selectExpr("CAST(data AS STRING)").as[String].collect().sorted.toSeq == (1 to 20)
        .map(i => s"value-$i")
        .sorted)
  }
}
