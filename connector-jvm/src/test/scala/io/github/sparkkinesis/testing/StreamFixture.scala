// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig}
import io.github.sparkkinesis.client.{ExecutorApis, KinesisApi}
import io.github.sparkkinesis.config._
import io.github.sparkkinesis.offsets.KinesisSourceOffset
import io.github.sparkkinesis.source.{KinesisMicroBatchStream, QueryStreams}
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.connector.read.streaming.Offset
import org.scalatest.concurrent.Eventually
import org.scalatest.time.{Seconds, Span}

/**
 * A [[KinesisMicroBatchStream]] over a fake Kinesis, a manual clock and prefetch tasks run in-process, driven
 * as Spark drives it: offsets, partitions read by their readers, commits, and new stream objects over the
 * same checkpoint as after a restart.
 */
class StreamFixture(
    position: InitialPosition,
    streams: Seq[String] = Seq("s"),
    maxRecords: Int = 100,
    limits: TriggerLimits = TriggerLimits(None, None),
    prefetch: PrefetchConfig => PrefetchConfig = identity,
    reading: ReadConfig => ReadConfig = identity,
    consumer: ConsumerConfig = DefaultConfigs.Polling,
    outageTimeoutMs: Option[Long] = Some(600000),
    shardFetchIntervalMs: Long = 0) {
  private implicit val patience: Eventually.PatienceConfig = StreamFixture.Patience
  val clock = new ManualClock()
  val api = new FakeKinesisApi(clock)
  val checkpoint: String = Files.createTempDirectory("kinesis-stream-suite").toString
  val config = KinesisSourceConfig(
    streams,
    position,
    shardFetchIntervalMs = shardFetchIntervalMs,
    maxShardsPerDescribe = 100,
    reading(DefaultConfigs.Reading.copy(maxRecordsPerFetch = maxRecords, outageTimeoutMs = outageTimeoutMs)),
    prefetch(DefaultConfigs.Prefetch.copy(maxFetchDurationMs = 1000)),
    limits,
    consumer,
    StreamFixture.Aws
  )
  var runtime = new LocalPrefetchRuntime(api, clock)

  /** Every task's Kinesis: the fake. */
  val apis: ExecutorApis = _ => api

  /** What every mode knows of the fixture's streams, through `kinesis` (the fake), over `checkpointAt`. */
  def newStreams(
      kinesis: KinesisApi = api,
      checkpointAt: String = checkpoint,
      queryId: Option[String] = Some(StreamFixture.QueryId)): QueryStreams =
    new QueryStreams(config, checkpointAt, clock, () => kinesis, () => new Configuration(), () => queryId)

  def newStream(): KinesisMicroBatchStream = {
    runtime = new LocalPrefetchRuntime(api, clock)
    StreamFixture.remember(new KinesisMicroBatchStream(config, newStreams(), clock, runtime, apis))
  }
  var stream = newStream()

  def initial: KinesisSourceOffset = stream.initialOffset().asInstanceOf[KinesisSourceOffset]

  def latest(from: Offset): KinesisSourceOffset =
    stream.latestOffset(from, stream.getDefaultReadLimit).asInstanceOf[KinesisSourceOffset]

  /** The next offset that moves, once the prefetcher has read something. */
  def next(from: KinesisSourceOffset): KinesisSourceOffset = Eventually.eventually {
    val end = latest(from)
    assert(end != from)
    end
  }

  /** The records of a batch, as a partition reader gives them: (shard, data), in partition order. */
  def read(from: Offset, to: Offset): Seq[(String, String)] = {
    val factory = stream.createReaderFactory()
    stream.planInputPartitions(from, to).toSeq.flatMap { p =>
      val reader = factory.createReader(p)
      try
        Iterator
          .continually(reader.next())
          .takeWhile(identity)
          .map { _ =>
            val row = reader.get()
            (row.getUTF8String(3).toString, new String(row.getBinary(1), UTF_8))
          }
          .toVector
      finally reader.close()
    }
  }

  /** Runs batches until `expected` records have been read; returns them, committing each batch. */
  def readAll(from: KinesisSourceOffset, expected: Int): (Seq[(String, String)], KinesisSourceOffset) = {
    var offset = from
    val rows = Vector.newBuilder[(String, String)]
    var count = 0
    while (count < expected) {
      val end = next(offset)
      val batch = read(offset, end)
      rows ++= batch
      count += batch.size
      stream.commit(end)
      offset = end
    }
    (rows.result(), offset)
  }

  def metrics: Map[String, String] = stream.metrics(java.util.Optional.empty()).asScala.toMap
}

object StreamFixture {
  private val created = new java.util.concurrent.ConcurrentLinkedQueue[KinesisMicroBatchStream]()

  private def remember(stream: KinesisMicroBatchStream): KinesisMicroBatchStream = {
    created.add(stream)
    stream
  }

  /** Stops every stream a fixture made, as a query's end would: their prefetch loops would run on. */
  def stopAll(): Unit =
    Iterator.continually(created.poll()).takeWhile(_ != null).foreach { stream =>
      try stream.stop()
      catch { case scala.util.control.NonFatal(_) => }
    }
  val QueryId = "5d2a4c1e-8f3b-4a8e-9c61-2b7f0e9d3a11"
  val Patience: Eventually.PatienceConfig = Eventually.PatienceConfig(timeout = Span(20, Seconds))

  val Aws: AwsConfig = AwsConfig("us-east-1", Some("http://fake"), AwsCredentialsConfig.DefaultChain)
}
