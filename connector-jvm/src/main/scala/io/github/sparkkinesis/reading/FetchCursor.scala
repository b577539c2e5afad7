// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

/**
 * How a shard is being read, carried from one reader to the next (from one prefetch task to the next) so
 * that pacing, throttling and the open shard iterator survive the end of a task; a fresh read starts from
 * an empty one.
 *
 * @param iterator        a shard iterator positioned at the shard's prefetch position, if one is open
 * @param notBeforeMs     the shard's next GetRecords call is not before this instant (epoch ms)
 * @param recordsPerCall  records asked for per call: maxRecordsPerFetch, halved while throttled
 * @param executor        where the last task ran (Spark's `executor_<host>_<id>`): an enhanced fan-out
 *                        subscription it left open waits there for the next task
 * @param quietCalls      polling: calls in a row that found nothing new at the shard's tip
 */
private[sparkkinesis] final case class FetchCursor(
    iterator: Option[String],
    notBeforeMs: Long,
    recordsPerCall: Int,
    executor: Option[String] = None,
    quietCalls: Int = 0)
