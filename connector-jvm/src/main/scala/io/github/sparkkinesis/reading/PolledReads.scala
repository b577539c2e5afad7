// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.{IteratorStart, KinesisApi, KinesisApiException, KinesisRecord, RecordBatch}
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.util.{Backoff, Clock}
import org.slf4j.LoggerFactory

/**
 * Polling: paced GetRecords calls on a shard iterator, within Kinesis' limits per shard:
 *
 *  - at most `maxRecordsPerFetch` records per call;
 *  - calls at least `minFetchPeriod` apart;
 *  - on average at most `maxFetchRate`: after a call that returned `b` bytes the next waits `b / rate`;
 *  - a quiet shard, whose calls find nothing new at its tip, is called less often: from the second such
 *    call in a row each doubles the pause, up to `quietPeriodMs`; any record ends it. A thread that reads
 *    many shards so spends its calls where records are (see `prefetch.PrefetchTask` for the bound it sets);
 *  - when throttled, half as many records per call and a pause of five seconds made uneven
 *    (`util.Backoff.jittered`: 2.5 to 5 s), so that the readers of a shard throttled together come back
 *    apart; the size doubles back with each call that succeeds. A shard's throttling is logged at WARN
 *    when it starts, then summed up at INFO at most once a minute while it goes on ([[ThrottleLog]]); each
 *    other throttled call at DEBUG. This pacing is the only backoff on throttling: the AWS SDK does not retry GetRecords'
 *    throttling answers (see `client.KinesisClientFactory`).
 *
 * An iterator that expired is opened again at `resumeAt`.
 */
private[reading] final class PolledReads(
    api: KinesisApi,
    key: ShardKey,
    config: ReadConfig,
    start: FetchCursor,
    clock: Clock,
    quietPeriodMs: Long = 0L,
    throttleLog: ThrottleLog = ThrottleLog.shared)
    extends ShardReads {
  import PolledReads._

  private var iterator = start.iterator
  private var notBefore = start.notBeforeMs
  private var recordsPerCall = start.recordsPerCall
  private var quietCalls = start.quietCalls
  private var made = 0
  private var answeredAt = Option.empty[Long]

  override def nextStepAt: Long = notBefore
  override def calls: Int = made
  override def lastAnsweredAt: Option[Long] = answeredAt
  override def cursor: FetchCursor = FetchCursor(iterator, notBefore, recordsPerCall, quietCalls = quietCalls)
  override def reset(): Unit = iterator = None
  override def close(): Unit = ()

  override def step(resumeAt: => IteratorStart): ReadStep = {
    val startedAt = clock.nowMillis()
    val step = call(resumeAt, startedAt)
    answeredAt = Some(startedAt)
    step
  }

  /** The pause after a call: minFetchPeriod, longer for a quiet shard. */
  private def period: Long =
    if (quietCalls <= 1) config.minFetchPeriodMs
    else
      math.max(
        config.minFetchPeriodMs,
        math.min(quietPeriodMs, config.minFetchPeriodMs << math.min(quietCalls - 1, 20)))

  private def call(resumeAt: => IteratorStart, startedAt: Long): ReadStep = {
    val current = iterator.getOrElse {
      val opened = ShardIterators.open(api, key, resumeAt, config.failOnDataLoss)
      iterator = Some(opened)
      opened
    }
    val asked = recordsPerCall
    made += 1
    try {
      val batch = api.getRecords(key.stream, key.shardId, current, asked)
      recordsPerCall = math.min(config.maxRecordsPerFetch, recordsPerCall * 2)
      iterator = batch.nextIterator
      val bytes = RecordBatch.dataBytes(batch.records)
      quietCalls = if (batch.records.isEmpty && batch.millisBehindLatest == 0) quietCalls + 1 else 0
      notBefore = startedAt + math.max(period, bytes * 1000 / config.maxFetchBytesPerSecond)
      // Kinesis computes the lag from arrival times, so records that arrived in the same millisecond can
      // show a lag of 0 while more of them are left: a full answer is never taken for the tip, nor, for a
      // read up to an instant, one that Kinesis may have cut short for its size.
      val atTip = batch.millisBehindLatest == 0 && batch.records.size < asked
      ReadStep.Read(
        batch.records,
        batch.millisBehindLatest,
        atTip = atTip,
        shardEnded = batch.nextIterator.isEmpty,
        asOf = startedAt,
        wholeUpTo = if (atTip) MaxAnswerBytes - answerBytesAtMost(batch.records, bytes) else ReadStep.NotWhole
      )
    } catch {
      case _: KinesisApiException.ExpiredIterator =>
        log.debug(s"Shard iterator of $key expired; renewing it")
        iterator = None
        ReadStep.Nothing
      case e: KinesisApiException.Throttled =>
        recordsPerCall = math.max(1, recordsPerCall / 2)
        val pause = Backoff.jittered(ThrottlePauseMs)
        notBefore = startedAt + pause
        def detail = s"$key; next calls ask for $recordsPerCall records"
        throttleLog.throttled(key, startedAt) match {
          case ThrottleLog.Starts =>
            log.warn(
              s"Hit rate limit. Sleeping for $pause ms. ($detail; while the shard stays throttled, a summary " +
                "follows at INFO at most once a minute)")
          case ThrottleLog.GoesOn(calls, overMs) =>
            log.info(s"Hit rate limit: $calls throttled calls of $key in the last ${overMs / 1000} s ($detail)")
          case ThrottleLog.Quiet => log.debug(s"Hit rate limit. Sleeping for $pause ms. ($detail)")
        }
        ReadStep.Throttled(e)
    }
  }
}

private[reading] object PolledReads {
  private val log = LoggerFactory.getLogger(classOf[PolledReads])

  /** How long a throttled shard rests, as the Databricks source's log line says. */
  val ThrottlePauseMs = 5000L

  /**
   * The most a GetRecords answer carries: Kinesis ends an answer before the record that would take it past
   * this. An answer of `b` bytes at the tip was so not cut short if the shard's next record, whatever it is,
   * would have fitted in what is left: if no record of the shard is larger than `MaxAnswerBytes - b`. In a
   * stream of records of at most 1 MiB (Kinesis' default) any answer up to 9 MiB is whole; in one of 10 MiB
   * records only an empty answer is.
   */
  val MaxAnswerBytes: Long = 10L * 1024 * 1024

  /** At most what `records` count towards an answer's size: their data, and their keys at 3 UTF-8 bytes a char. */
  private def answerBytesAtMost(records: Seq[KinesisRecord], dataBytes: Long): Long =
    dataBytes + 3L * records.iterator.map(r => if (r.partitionKey == null) 0L else r.partitionKey.length.toLong).sum
}
