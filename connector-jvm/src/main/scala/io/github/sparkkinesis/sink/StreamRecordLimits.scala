// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{KinesisApi, KinesisApiException, StreamSummary}
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * The largest record each stream takes, for the writing tasks of an executor: a record up to 1 MiB (what every
 * stream takes) needs no call; a larger one is held against the stream's `MaxRecordSizeInKiB`, asked with
 * DescribeStreamSummary once per stream and [[StreamRecordLimits.MaxAgeMs]], and asked again before a record
 * is refused, so that a limit raised while a query writes is seen at once. A stream that cannot be described
 * (DescribeStreamSummary denied) takes what Kinesis allows any stream, 10 MiB, and Kinesis itself refuses a
 * record its stream does not take. Thread-safe.
 */
private[sparkkinesis] object StreamRecordLimits {
  private val log = LoggerFactory.getLogger(getClass)

  /** How long an executor uses a stream's limit before it asks again. */
  val MaxAgeMs = 60000L

  private final case class Known(limit: Long, described: Boolean, atMs: Long)

  /** By client (one per endpoint, region and credentials: see SharedKinesisApis) and stream name. */
  private val known = new ConcurrentHashMap[(KinesisApi, String), Known]()

  /**
   * The stream's limit, and whether Kinesis said it, for a record of `size` bytes: asked of Kinesis when
   * none is known, when what is known is older than [[MaxAgeMs]], or when the record is larger than it.
   */
  def forRecord(api: KinesisApi, stream: String, size: Long, clock: Clock): (Long, Boolean) = {
    if (size <= StreamSummary.DefaultMaxRecordBytes) (StreamSummary.DefaultMaxRecordBytes, true)
    else {
      val key = (api, stream)
      val now = clock.nowMillis()
      val fresh = Option(known.get(key)).filter(k => now - k.atMs < MaxAgeMs && size <= k.limit).getOrElse {
        val asked = describe(api, stream, now)
        known.put(key, asked)
        asked
      }
      (fresh.limit, fresh.described)
    }
  }

  private def describe(api: KinesisApi, stream: String, now: Long): Known =
    try Known(api.describeStream(stream).recordLimit, described = true, now)
    catch {
      case e: KinesisApiException.ResourceNotFound => throw e
      case NonFatal(e) =>
        log.warn(
          s"Could not describe stream '$stream' ($e) to learn the largest record it takes: records up to " +
            s"${StreamSummary.LargestMaxRecordBytes / 1024 / 1024} MiB are sent, and Kinesis refuses those the " +
            "stream does not take. Allow kinesis:DescribeStreamSummary to have them refused before anything is sent.")
        Known(StreamSummary.LargestMaxRecordBytes, described = false, now)
    }
}
