// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import java.time.Instant
import java.util.UUID

import scala.jdk.CollectionConverters._
import scala.util.Try

import io.github.sparkkinesis.config.KinesisSourceConfig
import org.apache.spark.sql.streaming.StreamingQueryProgress

/**
 * The figures of a query progress that go to CloudWatch: those of its Kinesis sources only (told by their
 * `description`, as [[KinesisSourceConfig.describe]] writes it), one datum per figure, with the progress's
 * timestamp and the dimensions `Query` and `Stream`. A figure a progress does not carry (the lag of a stream
 * whose calls fail) gives no datum: CloudWatch then shows a gap, not the last value known again. Stateless.
 */
private[sparkkinesis] object ProgressFigures {

  val Milliseconds = "Milliseconds"
  val Seconds = "Seconds"
  val Count = "Count"
  val Bytes = "Bytes"

  /** Each figure a Kinesis source reports (see docs/guides/operations.md), with its unit. */
  val Units: Map[String, String] = Map(
    "avgMsBehindLatest" -> Milliseconds,
    "maxMsBehindLatest" -> Milliseconds,
    "minMsBehindLatest" -> Milliseconds,
    "secondsSinceLastSuccessfulCall" -> Seconds,
    "totalPrefetchedBytes" -> Bytes,
    "totalPrefetchedRecords" -> Count,
    "numPrefetchedBlocks" -> Count,
    "numTotalShards" -> Count,
    "numClosedShards" -> Count,
    "numStreams" -> Count,
    "numRegisteredConsumers" -> Count,
    "numAwsRateLimitErrors" -> Count,
    "numThrottledFetches" -> Count,
    "numCorruptAggregatedRecords" -> Count
  )

  /** The figures a source reports once per stream too, as `<figure>.<stream>`, with several streams. */
  private val PerStream =
    Set("avgMsBehindLatest", "maxMsBehindLatest", "minMsBehindLatest", "secondsSinceLastSuccessfulCall")

  val QueryDimension = "Query"
  val StreamDimension = "Stream"

  /** The data of `progress`: none if it has no Kinesis source. */
  def of(progress: StreamingQueryProgress): Seq[MetricDatum] =
    of(
      progress.id,
      progress.name,
      progress.timestamp,
      progress.sources.toSeq.map(s =>
        s.description -> Option(s.metrics).fold(Map.empty[String, String])(_.asScala.toMap))
    )

  /**
   * The data of a progress of query `id` (named `name`, or null), reported at `timestamp` (ISO-8601), whose
   * sources are `sources`: each one's description and metrics.
   */
  def of(id: UUID, name: String, timestamp: String, sources: Seq[(String, Map[String, String])]): Seq[MetricDatum] = {
    val query = Option(name).filter(_.nonEmpty).getOrElse(id.toString).take(MaxDimensionValue)
    val at = timestampOf(timestamp)
    sources.flatMap { case (description, metrics) =>
      KinesisSourceConfig.streamsDescribed(String.valueOf(description)).toSeq.flatMap { streams =>
        metrics.toSeq.sortBy(_._1).flatMap { case (key, text) =>
          figure(key, streams).flatMap { case (metric, stream) =>
            Try(text.trim.toDouble).toOption.filter(v => !v.isNaN && !v.isInfinite).map { value =>
              val dimensions = Seq(QueryDimension -> query, StreamDimension -> stream.take(MaxDimensionValue))
              MetricDatum(metric, Units(metric), dimensions, value, at)
            }
          }
        }
      }
    }
  }

  /** CloudWatch takes dimension values of at most 1024 characters. */
  private val MaxDimensionValue = 1024

  /**
   * The metric name and `Stream` dimension of the source's figure `key`: a source-wide figure's stream is
   * its streams, comma-separated (the stream, with one); `<figure>.<stream>` is the figure of that stream.
   */
  private def figure(key: String, streams: Seq[String]): Option[(String, String)] =
    if (Units.contains(key)) Some(key -> streams.mkString(","))
    else
      PerStream.collectFirst {
        case name if key.startsWith(name + ".") && streams.contains(key.substring(name.length + 1)) =>
          name -> key.substring(name.length + 1)
      }

  /** When Spark reported the progress (ISO-8601 in UTC); now if it cannot be read. */
  private def timestampOf(timestamp: String): Long =
    Option(timestamp).flatMap(t => Try(Instant.parse(t).toEpochMilli).toOption).getOrElse(System.currentTimeMillis())
}
