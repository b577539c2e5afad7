// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import java.util.concurrent.ConcurrentHashMap
import java.util.UUID

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.sparkkinesis.ActiveQueries
import org.apache.spark.sql.streaming.{StreamingQueryListener, StreamingQueryProgress}
import org.apache.spark.sql.streaming.StreamingQueryListener.{
  QueryIdleEvent,
  QueryProgressEvent,
  QueryStartedEvent,
  QueryTerminatedEvent
}
import org.apache.spark.SparkConf

/**
 * Publishes the Kinesis sources' figures of every query progress (lag, time since Kinesis last answered,
 * throttling, prefetched bytes, shard counts: see [[ProgressFigures]]) to CloudWatch as metrics, with
 * PutMetricData: one datum per figure, source stream and progress, with the dimensions `Query` and `Stream`.
 *
 * Enabled with no code by the setting `spark.sql.streaming.streamingQueryListeners` naming this class, with
 * its own settings `spark.kinesis.cloudwatch.*` ([[CloudWatchSettings]]), read when Spark makes it (with
 * the session); or, from Python, by `pyspark_kinesis.publish_metrics_to_cloudwatch`.
 *
 * Never slows a query: Spark calls it on its listener bus thread, where it only queues the data; its own
 * daemon thread sends them ([[MetricsPublisher]]). A progress already published (the same query and
 * timestamp) is not published again. An idle query's progress, which Spark hands no listener, is published
 * when Spark says the query is idle. Driver side; thread-safe.
 */
final class CloudWatchMetricsListener private[sparkkinesis] (
    private[sparkkinesis] val settings: CloudWatchSettings,
    private[sparkkinesis] val publisher: MetricsPublisher,
    lastProgressOf: UUID => Option[StreamingQueryProgress])
    extends StreamingQueryListener {

  private[sparkkinesis] def this(settings: CloudWatchSettings) =
    this(
      settings,
      new MetricsPublisher(settings.namespace, () => new SdkCloudWatchApi(settings), settings.maxQueuedData),
      ActiveQueries.lastProgressOf)

  /** As Spark makes it from `spark.sql.streaming.streamingQueryListeners`, with the session's configuration. */
  def this(conf: SparkConf) = this(CloudWatchMetricsListener.settingsOf(conf))

  /** Per query, the timestamp of the last progress published. */
  private val published = new ConcurrentHashMap[UUID, String]()

  override def onQueryStarted(event: QueryStartedEvent): Unit = ()

  override def onQueryProgress(event: QueryProgressEvent): Unit = publish(event.progress)

  /**
   * An idle query tells listeners only that it is idle, every `spark.sql.streaming.noDataProgressEventInterval`
   * (10 s by default), and makes a progress it reports to no listener: that one is published, so that the
   * figures go on while no record arrives, Kinesis out of reach among the reasons.
   */
  override def onQueryIdle(event: QueryIdleEvent): Unit = lastProgressOf(event.id).foreach(publish)

  private def publish(progress: StreamingQueryProgress): Unit =
    if (published.put(progress.id, String.valueOf(progress.timestamp)) != String.valueOf(progress.timestamp))
      publisher.offer(ProgressFigures.of(progress))

  override def onQueryTerminated(event: QueryTerminatedEvent): Unit = published.remove(event.id)

  /** Data dropped so far: beyond `maxQueuedData` while CloudWatch was slow or out, or refused by it. */
  private[sparkkinesis] def dropped: Long = publisher.dropped

  /** Stops publishing; what is queued gets one last attempt. */
  private[sparkkinesis] def close(): Unit = publisher.close()

  override def toString: String = s"CloudWatchMetricsListener(${settings.namespace}, ${settings.describeTarget})"
}

private[sparkkinesis] object CloudWatchMetricsListener {

  private def settingsOf(conf: SparkConf): CloudWatchSettings = CloudWatchSettings.fromConf(conf.getAll.toSeq)

  /** The listeners of this class on a session's query manager. */
  def on(listeners: Array[StreamingQueryListener]): Seq[CloudWatchMetricsListener] =
    listeners.toSeq.collect { case l: CloudWatchMetricsListener => l }

  /** `settings` over those of `conf`, for a listener added from Python. */
  def settingsOf(conf: SparkConf, overrides: java.util.Map[String, String]): CloudWatchSettings = {
    val fromConf = conf.getAll.toSeq.collect {
      case (k, v) if k.toLowerCase(java.util.Locale.ROOT).startsWith(CloudWatchSettings.Prefix) =>
        k.substring(CloudWatchSettings.Prefix.length) -> v
    }.toMap
    val over = overrides.asScala.toMap
    val lower = over.keySet.map(_.toLowerCase(java.util.Locale.ROOT))
    CloudWatchSettings.parse(fromConf.filter { case (k, _) => !lower(k.toLowerCase(java.util.Locale.ROOT)) } ++ over)
  }
}
