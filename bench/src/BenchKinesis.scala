// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.io.File
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.time.Instant

import io.github.sparkkinesis.client.KinesisAdminApi
import io.github.sparkkinesis.testing.{EmulatorProcess, KinesisEmulator}
import org.apache.spark.sql.SparkSession
import software.amazon.awssdk.services.kinesis.model.{GetShardIteratorRequest, ShardIteratorType}
import software.amazon.awssdk.services.kinesis.KinesisClient

/**
 * Where a benchmark runs: kinesis-local, started here, unless KINESIS_ENDPOINT names another Kinesis; the
 * options that reach it, and the streams the benchmark creates (deleted at the end on a real endpoint; the
 * emulator goes with its data). Close it when done.
 */
final class BenchKinesis(val shards: Int) extends AutoCloseable {
  val root = new File(sys.props.getOrElse("kinesis.test.root", "."))
  private val external = sys.env.get("KINESIS_ENDPOINT").filter(_.nonEmpty)
  private val region = external.flatMap(_ => sys.env.get("AWS_REGION")).getOrElse("us-east-1")
  private val emulator = new EmulatorProcess(root, region)
  val endpoint: String = external.getOrElse(emulator.start())
  val admin: KinesisAdminApi =
    KinesisAdminApi.create(KinesisEmulator.awsConfig(region, endpoint, emulated = external.isEmpty))

  /** The connector's options to reach this Kinesis. */
  val options: Map[String, String] = Map("endpoint" -> endpoint, "region" -> region) ++
    (if (external.isEmpty)
       Map("awsAccessKey" -> KinesisEmulator.AccessKey, "awsSecretKey" -> KinesisEmulator.SecretKey)
     else Map.empty)

  private val streams = Seq.newBuilder[String]

  /** A new stream of `shards` shards, ACTIVE. */
  def newStream(prefix: String): String = {
    val name = s"$prefix-${java.util.UUID.randomUUID().toString.take(8)}"
    admin.createStream(name, shards)
    streams += name
    name
  }

  /** What the results file says the benchmark ran against. */
  def description: String = if (external.isEmpty) "kinesis-local on loopback" else endpoint

  /** Writes `bench/results/<name>` (see [[BenchKinesis.saveResults]]). */
  def saveResults(name: String, command: String, fields: Seq[String]): Unit =
    BenchKinesis.saveResults(name, command, description, fields)

  override def close(): Unit = {
    if (external.isDefined) streams.result().foreach(admin.deleteStream)
    admin.close()
    emulator.stop()
  }
}

object BenchKinesis {

  /**
   * Writes `bench/results/<name>` below the repository's root: when, how and against what (`kinesis`) the
   * benchmark ran, then `fields`, each a line of JSON object members (`"key": value`) without the separating
   * comma.
   */
  def saveResults(name: String, command: String, kinesis: String, fields: Seq[String]): Unit = {
    val root = new File(sys.props.getOrElse("kinesis.test.root", "."))
    val out = new File(root, s"bench/results/$name")
    out.getParentFile.mkdirs()
    val header = Seq(
      s""""measuredAt": "${Instant.now()}"""",
      s""""command": "$command"""",
      s""""kinesis": "$kinesis"""",
      s""""machine": "${Runtime.getRuntime.availableProcessors()} cores""""
    )
    val json = (header ++ fields).map("  " + _).mkString("{\n", ",\n", "\n}\n")
    Files.write(out.toPath, json.getBytes(UTF_8))
    println(s"Saved ${out.getPath}")
  }

  /** The value below which `p` percent of `values` lie (nearest rank), if there are any. */
  def percentile(values: Seq[Long], p: Double): Option[Long] = {
    val sorted = values.sorted
    if (sorted.isEmpty) None else Some(sorted(math.min(sorted.size - 1, math.ceil(p / 100 * sorted.size).toInt - 1)))
  }

  /** An iterator at the oldest record of `shard`, from a plain SDK client: where the baseline readers start. */
  def trimHorizon(client: KinesisClient, stream: String, shard: String): String =
    client
      .getShardIterator(
        GetShardIteratorRequest
          .builder()
          .streamName(stream)
          .shardId(shard)
          .shardIteratorType(ShardIteratorType.TRIM_HORIZON)
          .build())
      .shardIterator()

  def largest(values: Seq[Long]): Option[Long] = if (values.isEmpty) None else Some(values.max)

  /** The CPU time this JVM has spent, every thread together. */
  def processCpuNanos(): Long =
    ManagementFactory.getOperatingSystemMXBean
      .asInstanceOf[com.sun.management.OperatingSystemMXBean]
      .getProcessCpuTime

  /** A local Spark session of `cores` cores, bound to loopback, without the UI. */
  def spark(cores: Int): SparkSession =
    SparkSession
      .builder()
      .master(s"local[$cores]")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.driver.host", "127.0.0.1")
      .getOrCreate()
}
