// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import java.time.Instant

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
    "numTotalShards" -> Count,
    "numClosedShards" -> Count,
    "numStreams" -> Count,
    "numRegisteredConsumers" -> Count,
    "numAwsRateLimitErrors" -> Count,
    "numThrottledFetches" -> Count,
    "numCorruptAggregatedRecords" -> Count
  )

  /** The figures a source reports once per stream, as `<figure>.<stream>`, with several streams. */
  private val PerStream = Set("secondsSinceLastSuccessfulCall")

  val QueryDimension = "Query"
  val StreamDimension = "Stream"

  /** The data of `progress`: none if it has no Kinesis source. */
  def of(progress: StreamingQueryProgress): Seq[MetricDatum] = {
    val query = Option(progress.name).filter(_.nonEmpty).getOrElse(progress.id.toString)
    val at = timestampOf(progress)
    progress.sources.toSeq.flatMap { source =>
      KinesisSourceConfig.streamsDescribed(source.description).toSeq.flatMap { streams =>
        val metrics = Option(source.metrics).map(_.asScala.toMap).getOrElse(Map.empty[String, String])
        metrics.toSeq.sortBy(_._1).flatMap { case (key, text) =>
          figure(key, streams).flatMap { case (name, stream) =>
            Try(text.trim.toDouble).toOption.filter(v => !v.isNaN && !v.isInfinite).map { value =>
              MetricDatum(name, Units(name), Seq(QueryDimension -> query, StreamDimension -> stream), value, at)
            }
          }
        }
      }
    }
  }

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
  private def timestampOf(progress: StreamingQueryProgress): Long =
    Option(progress.timestamp)
      .flatMap(t => Try(Instant.parse(t).toEpochMilli).toOption)
      .getOrElse(System.currentTimeMillis())
}
