// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.shards

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{KinesisApi, KinesisApiException, StreamSummary}
import org.slf4j.LoggerFactory

/**
 * The largest record each stream holds now (its `MaxRecordSizeInKiB`), which tells a read up to an instant
 * whether an answer at a shard's tip could have been cut short for its size (`reading.ReadEnd.ArrivedBefore`).
 * Asked of Kinesis once per call, with DescribeStreamSummary, after the instant is fixed: a stream whose limit
 * was raised before it is seen raised. A stream that cannot be described is left out, and its shards are read
 * as if its records could be 10 MiB: each shard's end then costs one GetRecords call more, which finds nothing.
 * Driver side.
 */
private[sparkkinesis] object RecordLimits {
  private val log = LoggerFactory.getLogger(getClass)

  /** By stream, the largest record it takes; streams that could not be described are left out. */
  def of(api: KinesisApi, streams: Seq[String]): Map[String, Long] =
    streams.distinct.flatMap { stream =>
      try Some(stream -> api.describeStream(stream).recordLimit)
      catch {
        case e: KinesisApiException.ResourceNotFound => throw e
        case NonFatal(e) =>
          log.warn(
            s"Could not describe stream '$stream' ($e): reading it up to an instant, each shard ends with one " +
              "GetRecords call more, as its records could be as large as " +
              s"${StreamSummary.LargestMaxRecordBytes / 1024 / 1024} MiB. Allow kinesis:DescribeStreamSummary " +
              "to spare the calls.")
          None
      }
    }.toMap
}
