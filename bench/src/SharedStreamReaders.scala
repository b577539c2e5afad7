// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.nio.file.Files
import java.util.concurrent.{ConcurrentHashMap, ConcurrentLinkedQueue}
import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.bench.synthetic.SyntheticKinesis
import io.github.sparkkinesis.client._
import io.github.sparkkinesis.testing.DelegatingKinesisApi
import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.{LogEvent, LoggerContext}
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.logging.log4j.core.config.Property
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.streaming.StreamingQuery
import org.apache.spark.TaskContext
import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.services.kinesis.model.{
  GetRecordsRequest,
  ProvisionedThroughputExceededException,
  PutRecordsRequest,
  PutRecordsRequestEntry
}

/**
 * Several readers of one stream of the synthetic Kinesis at once, each keeping what it read: polling queries
 * of the connector ([[SharedStreamReaders.startQueries]]) or plain AWS SDK readers
 * ([[SharedStreamReaders.startSdkReaders]]), while a [[SteadyWriter]] puts records. Shared by
 * `SharedLimitsBenchmark` and the test that several queries share a shard's limits.
 */
object SharedStreamReaders {

  /**
   * What one reader read: each record once per time it was read (shard and sequence number), with its
   * arrival time and when the reader had it (at the sink, for a query), epoch ms.
   */
  final class ReadLog(val name: String) {
    private val counts = new ConcurrentHashMap[String, AtomicInteger]()
    private val seen = new ConcurrentLinkedQueue[(Long, Long)]()
    private val total = new AtomicLong()

    def add(shard: String, sequenceNumber: String, arrivalMs: Long, seenMs: Long): Unit = {
      counts.computeIfAbsent(s"$shard/$sequenceNumber", _ => new AtomicInteger()).incrementAndGet()
      seen.add(arrivalMs -> seenMs)
      total.incrementAndGet()
    }

    /** Records read, counting a record read twice twice. */
    def rows: Long = total.get()
    def distinct: Int = counts.size
    def duplicates: Int = counts.values.asScala.count(_.get > 1)

    /** Distinct records read of each shard. */
    def distinctByShard: Map[String, Int] =
      counts.keySet.asScala.toSeq.groupBy(_.takeWhile(_ != '/')).map { case (shard, keys) => shard -> keys.size }

    /** When each record arrived and when the reader had it, for those that arrived at or after `fromMs`. */
    def arrivals(fromMs: Long): Seq[(Long, Long)] = seen.asScala.filter(_._1 >= fromMs).toSeq

    /** When the reader had the `n`-th record of those that arrived before `beforeMs`, if it had that many. */
    def hadBacklogAt(beforeMs: Long, n: Long): Option[Long] = {
      val times = seen.asScala.collect { case (arrival, at) if arrival < beforeMs => at }.toSeq.sorted
      if (times.size >= n && n > 0) Some(times((n - 1).toInt)) else None
    }
  }

  /**
   * Puts `perSecond` records of `recordBytes` a second to `stream`, spread over its shards by random
   * partition keys, in PutRecords calls every 100 ms, until stopped; counts the records Kinesis took.
   */
  final class SteadyWriter(kinesis: SyntheticKinesis, stream: String, perSecond: Int, recordBytes: Int)
      extends AutoCloseable {
    private val written = new AtomicLong()
    @volatile private var running = true
    private val data = SdkBytes.fromByteArray(Array.fill[Byte](recordBytes)('x'.toByte))
    private val thread = new Thread(() => write(), s"steady-writer-$stream")
    thread.setDaemon(true)
    thread.start()

    def records: Long = written.get()

    private def write(): Unit = {
      val client = kinesis.sdkClient()
      val random = new scala.util.Random(stream.hashCode)
      var next = System.nanoTime()
      var owed = 0.0
      try
        while (running) {
          owed += perSecond / 10.0
          val n = owed.toInt
          owed -= n
          if (n > 0) {
            val entries = (1 to n).map { _ =>
              PutRecordsRequestEntry.builder().partitionKey(s"k${random.nextLong()}").data(data).build()
            }
            val response =
              client.putRecords(PutRecordsRequest.builder().streamName(stream).records(entries.asJava).build())
            written.addAndGet((n - response.failedRecordCount().intValue).toLong)
          }
          next += 100000000L
          val wait = (next - System.nanoTime()) / 1000000
          if (wait > 0) Thread.sleep(wait)
        }
      finally client.close()
    }

    override def close(): Unit = {
      running = false
      thread.join(5000)
    }
  }

  /**
   * `queries` queries of `stream` from TRIM_HORIZON, each with `options` (polling unless they say otherwise),
   * each into a `foreachBatch` sink that adds its rows to its [[ReadLog]]; numbered from `first`.
   */
  def startQueries(
      spark: SparkSession,
      kinesis: SyntheticKinesis,
      stream: String,
      queries: Int,
      options: Map[String, String],
      first: Int = 1): Seq[(StreamingQuery, ReadLog)] =
    (first until first + queries).map { i =>
      val log = new ReadLog(s"query $i")
      val query = spark.readStream
        .format("kinesis")
        .options(kinesis.connectorOptions ++ options)
        .option("streamName", stream)
        .option("initialPosition", "trim_horizon")
        .load()
        .selectExpr("shardId", "sequenceNumber", "unix_millis(approximateArrivalTimestamp) AS arrival")
        .writeStream
        .queryName(s"shared-$stream-$i")
        .option("checkpointLocation", Files.createTempDirectory("shared-checkpoint").toString)
        .foreachBatch { (batch: DataFrame, _: Long) =>
          val rows = batch.collect()
          val now = System.currentTimeMillis()
          rows.foreach(r => log.add(r.getString(0), r.getString(1), r.getLong(2), now))
        }
        .start()
      query -> log
    }

  /** Plain SDK readers, one thread per shard each, each pacing its calls at `periodMs`; stop with `close`. */
  final class SdkReaders(kinesis: SyntheticKinesis, stream: String, shards: Int, readers: Int, periodMs: Long)
      extends AutoCloseable {
    @volatile private var running = true
    val logs: Seq[ReadLog] = (1 to readers).map(i => new ReadLog(s"SDK reader $i"))
    val calls: Seq[AtomicLong] = logs.map(_ => new AtomicLong())
    val throttled: Seq[AtomicLong] = logs.map(_ => new AtomicLong())
    private val clients = logs.map(_ => kinesis.sdkClient())
    private val threads = for { r <- logs.indices; s <- 0 until shards } yield {
      val thread = new Thread(() => read(r, f"shardId-$s%012d"), s"sdk-reader-$r-$s")
      thread.setDaemon(true)
      thread.start()
      thread
    }

    private def read(reader: Int, shard: String): Unit = {
      val client = clients(reader)
      var iterator = BenchKinesis.trimHorizon(client, stream, shard)
      // Each reader starts at its own instant in the period, as independent programs would.
      Thread.sleep(scala.util.Random.nextInt(periodMs.toInt).toLong)
      while (running) {
        val started = System.currentTimeMillis()
        calls(reader).incrementAndGet()
        try {
          val response = client.getRecords(GetRecordsRequest.builder().shardIterator(iterator).limit(10000).build())
          val now = System.currentTimeMillis()
          response.records().asScala.foreach { r =>
            logs(reader).add(shard, r.sequenceNumber(), r.approximateArrivalTimestamp().toEpochMilli, now)
          }
          iterator = response.nextShardIterator()
        } catch { case _: ProvisionedThroughputExceededException => throttled(reader).incrementAndGet() }
        val wait = started + periodMs - System.currentTimeMillis()
        if (wait > 0) Thread.sleep(wait)
      }
    }

    override def close(): Unit = {
      running = false
      threads.foreach(_.join(5000))
      clients.foreach(_.close())
    }
  }

  /**
   * Counts the connector's log lines at WARN and above, and among them `Hit rate limit` ones, with an
   * appender on the root logger for as long as it is open.
   */
  final class LogCounter extends AutoCloseable {
    private val warnings = new AtomicLong()
    private val rateLimits = new AtomicLong()
    private val throttlingLines = new AtomicLong()
    private val context = LogManager.getContext(false).asInstanceOf[LoggerContext]
    private val appender = new AbstractAppender("shared-limits-counter", null, null, true, Property.EMPTY_ARRAY) {
      override def append(event: LogEvent): Unit =
        if (event.getLoggerName.startsWith("io.github.sparkkinesis")) {
          val text = event.getMessage.getFormattedMessage
          if (event.getLevel.isMoreSpecificThan(Level.WARN)) {
            warnings.incrementAndGet()
            if (text.contains("Hit rate limit")) rateLimits.incrementAndGet()
          }
          if (event.getLevel.isMoreSpecificThan(Level.INFO) && text.toLowerCase.contains("throttl"))
            throttlingLines.incrementAndGet()
        }
    }
    appender.start()
    context.getConfiguration.getRootLogger.addAppender(appender, Level.ALL, null)
    context.updateLoggers()

    def warnLines: Long = warnings.get()
    def rateLimitWarnLines: Long = rateLimits.get()

    /** Lines at INFO or above about throttling, "Hit rate limit" ones included. */
    def throttlingInfoLines: Long = throttlingLines.get()

    override def close(): Unit = {
      context.getConfiguration.getRootLogger.removeAppender(appender.getName)
      context.updateLoggers()
      appender.stop()
    }
  }

  /**
   * The connector's GetRecords calls in this JVM, by the Spark job group of the task that made them (a
   * prefetch task's group starts with its query's run id): when each was made, on which shard, and whether
   * the connector saw it throttled (after the SDK's own retries, if any). Installed on every client the
   * connector makes from [[install]] on.
   */
  object CallLog {
    final case class Call(group: String, shard: String, atMs: Long, throttled: Boolean)
    private val calls = new ConcurrentLinkedQueue[Call]()

    def install(): Unit = KinesisClientFactory.wrapNewClients((_, api) => new Logging(api, "?"))

    def of(runId: String): Seq[Call] = calls.asScala.filter(_.group.startsWith(runId)).toSeq

    private final class Logging(real: KinesisApi, group: String) extends DelegatingKinesisApi(real) {
      override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch = {
        val at = System.currentTimeMillis()
        try {
          val batch = super.getRecords(stream, shardId, iterator, limit)
          calls.add(Call(group, shardId, at, throttled = false))
          batch
        } catch {
          case e: KinesisApiException.Throttled =>
            calls.add(Call(group, shardId, at, throttled = true))
            throw e
        }
      }
      override def counting(errors: RateLimitErrors): KinesisApi = {
        val taskGroup =
          Option(TaskContext.get()).flatMap(t => Option(t.getLocalProperty("spark.jobGroup.id"))).getOrElse(group)
        new Logging(real.counting(errors), taskGroup)
      }
      override def close(): Unit = real.close()
    }
  }
}
