// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import java.io.{File, FileWriter}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, StandardCopyOption, StandardOpenOption}
import java.util.UUID

import scala.util.control.NonFatal

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.streaming.StreamingQuery

/**
 * The soak's Spark application, in a JVM of its own so that the soak can kill it and start it again: a
 * `local-cluster` of executor JVMs whose driver runs the soak's queries, each from TRIM_HORIZON into an
 * idempotent sink, until its standard input closes (then it stops them and exits; killed, it just dies).
 *
 * The sink writes each batch as one file, `<output>/<query>/batch-<id>-<attempt>.tsv`, whole or not at all
 * (written aside, then renamed): a line a row, its shard, sequence number, arrival time and the partition
 * that read it, and when the batch ran. A batch Spark runs again after a restart writes a file of its own,
 * which [[SoakCheck]] compares with the first. Every 2 seconds the driver appends what only it can see to
 * `metrics`, a JSON object a line ([[SoakDriver.metricsLine]]).
 */
private[soak] object SoakDriver {

  /** Where and how to run, as the soak hands it over (key=value arguments). */
  final case class Settings(
      master: String,
      endpoint: String,
      stream: String,
      work: File,
      queries: Seq[SoakQuery],
      executorJavaOptions: String) {
    def checkpoint(query: SoakQuery): File = new File(work, s"checkpoints/${query.name}")
    def output(query: SoakQuery): File = new File(work, s"output/${query.name}")
    def metrics: File = new File(work, "driver-metrics.jsonl")
    def applications: File = new File(work, "applications")
  }

  def main(args: Array[String]): Unit = {
    val named = args.map(_.split("=", 2)).collect { case Array(k, v) => k -> v }.toMap
    val settings = Settings(
      named("master"),
      named("endpoint"),
      named("stream"),
      new File(named("work")),
      named("queries").split(',').toSeq.map(SoakQuery.named),
      named.getOrElse("executorJavaOptions", "")
    )
    val spark = session(settings)
    // Named at once, so that the soak can remove what the cluster's workers keep of it, however it ends.
    Files.write(
      settings.applications.toPath,
      s"${spark.sparkContext.applicationId}\n".getBytes(UTF_8),
      StandardOpenOption.CREATE,
      StandardOpenOption.APPEND)
    val queries = settings.queries.map(q => q -> start(spark, settings, q))
    val reporter = new Thread(() => report(spark, settings, queries), "soak-driver-metrics")
    reporter.setDaemon(true)
    reporter.start()
    // Serves until the soak closes standard input, or a query fails (which the soak reports as a failure).
    val stdin = new Thread(() => { while (System.in.read() >= 0) {} }, "soak-driver-stdin")
    stdin.setDaemon(true)
    stdin.start()
    while (stdin.isAlive && queries.forall(_._2.isActive)) Thread.sleep(200)
    val failed = queries.flatMap { case (q, query) => query.exception.map(q -> _) }
    failed.foreach { case (q, e) => System.err.println(s"soak query ${q.name} failed: $e") }
    queries.foreach(_._2.stop())
    spark.stop()
    System.exit(if (failed.isEmpty) 0 else 1)
  }

  private def session(settings: Settings): SparkSession =
    SparkSession
      .builder()
      .appName("kinesis-soak")
      .master(settings.master)
      .config("spark.ui.enabled", "false")
      .config("spark.driver.host", "127.0.0.1")
      .config("spark.jars", sys.props("kinesis.test.connectorJar"))
      .config("spark.executor.extraJavaOptions", settings.executorJavaOptions)
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.sql.warehouse.dir", new File(settings.work, "warehouse").getPath)
      // An executor killed on purpose is no reason to give the application up.
      .config("spark.deploy.maxExecutorRetries", "-1")
      .getOrCreate()

  private def start(spark: SparkSession, settings: Settings, q: SoakQuery): StreamingQuery = {
    val output = settings.output(q)
    output.mkdirs()
    spark.readStream
      .format("kinesis")
      .option("endpoint", settings.endpoint)
      .option("region", "us-east-1")
      .option("awsAccessKey", "soak")
      .option("awsSecretKey", "soak")
      .option("streamName", settings.stream)
      .option("initialPosition", "trim_horizon")
      .options(q.options)
      .load()
      .selectExpr(
        "shardId",
        "sequenceNumber",
        "unix_millis(approximateArrivalTimestamp) AS arrivedAt",
        "spark_partition_id() AS part")
      .writeStream
      .queryName(q.name)
      .option("checkpointLocation", settings.checkpoint(q).getPath)
      .foreachBatch((batch: DataFrame, id: Long) => writeBatch(output, batch, id))
      .start()
  }

  /** One file per run of a batch, complete when it appears under its name. */
  private def writeBatch(output: File, batch: DataFrame, id: Long): Unit = {
    val rows = batch.collect()
    val readAt = System.currentTimeMillis()
    val text = new java.lang.StringBuilder(rows.length * 100)
    rows.foreach { r =>
      text.append(r.getString(0)).append('\t').append(r.getString(1)).append('\t').append(r.getLong(2))
      text.append('\t').append(r.getInt(3)).append('\t').append(readAt).append('\n')
    }
    val name = f"batch-$id%08d-${UUID.randomUUID().toString.take(8)}.tsv"
    val aside = new File(output, s".$name.tmp")
    Files.write(aside.toPath, text.toString.getBytes(UTF_8))
    Files.move(aside.toPath, new File(output, name).toPath, StandardCopyOption.ATOMIC_MOVE)
  }

  private def report(spark: SparkSession, settings: Settings, queries: Seq[(SoakQuery, StreamingQuery)]): Unit =
    while (true) {
      try {
        val line = metricsLine(spark, queries)
        val out = new FileWriter(settings.metrics, UTF_8, true)
        try out.write(line + "\n")
        finally out.close()
      } catch { case NonFatal(e) => System.err.println(s"soak driver metrics: $e") }
      Thread.sleep(2000)
    }

  /**
   * What the driver sees now: Spark's storage memory in use on the executors (the prefetched blocks), how
   * many executors it has, and each query's last progress: its batch, how far behind the stream's tip its
   * shards were, and the throttling answers counted.
   */
  def metricsLine(spark: SparkSession, queries: Seq[(SoakQuery, StreamingQuery)]): String = {
    // Every block manager's, the driver's among them (in a cluster it holds no prefetched block).
    val storageUsed = spark.sparkContext.getExecutorMemoryStatus.values.map { case (max, free) => max - free }.sum
    val executors = spark.sparkContext.statusTracker.getExecutorInfos.length - 1
    val perQuery = queries.map { case (q, query) =>
      val progress = Option(query.lastProgress)
      def metric(name: String): Long =
        progress.flatMap(p => Option(p.sources.head.metrics.get(name))).map(_.toDouble.toLong).getOrElse(-1L)
      s""""${q.name}": {"batchId": ${progress.map(_.batchId).getOrElse(-1L)}, """ +
        s""""maxMsBehindLatest": ${metric("maxMsBehindLatest")}, "numAwsRateLimitErrors": ${metric(
            "numAwsRateLimitErrors")}, "numRegisteredConsumers": ${metric("numRegisteredConsumers")}}"""
    }
    s"""{"at": ${System.currentTimeMillis()}, "executors": $executors, "storageUsedBytes": $storageUsed, """ +
      s""""queries": {${perQuery.mkString(", ")}}}"""
  }
}

/** One of the soak's queries: its name, and the options it adds to reading the stream from TRIM_HORIZON. */
private[soak] final case class SoakQuery(name: String, options: Map[String, String])

private[soak] object SoakQuery {

  /** Polling with the default options, as most queries run. */
  val Polling: SoakQuery = SoakQuery("polling", Map.empty)

  /** Enhanced fan-out through a consumer of its own, which the query registers again if it is deregistered. */
  val Efo: SoakQuery = SoakQuery("efo", Map("consumerMode" -> "efo", "consumerName" -> "soak-efo"))

  def named(name: String): SoakQuery = Seq(Polling, Efo).find(_.name == name).getOrElse {
    throw new IllegalArgumentException(s"no soak query $name")
  }
}
