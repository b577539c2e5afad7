// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reading.{FetchCursor, FetchFailure}

/**
 * What a prefetch task did with one shard.
 *
 * @param from        the position the task started from (the driver accepts the data only if it still is)
 * @param data        the records read, as a block, if there were any
 * @param reachedEnd  the shard is closed and read to its end
 * @param cutoffReached under Trigger.AvailableNow: nothing more arrived before the run's start
 * @param millisBehindLatest Kinesis' MillisBehindLatest after the last call, if a call succeeded
 * @param answeredAt  when the last call Kinesis answered was made (epoch ms), if one was
 * @param corruptAggregates records that looked like KPL aggregates but were not, passed on whole
 */
private[sparkkinesis] final case class ShardFetchOutcome(
    shard: ShardKey,
    from: ShardPosition,
    data: Option[Segment],
    reachedEnd: Boolean,
    cutoffReached: Boolean,
    cursor: FetchCursor,
    millisBehindLatest: Option[Long],
    answeredAt: Option[Long],
    calls: Int,
    throttledCalls: Int,
    corruptAggregates: Int,
    failure: Option[FetchFailure])
