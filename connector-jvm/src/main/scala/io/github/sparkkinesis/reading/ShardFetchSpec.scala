// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * One shard to read: where its records start, where reading stops, and how to go on reading it.
 *
 * @param cursor      the pacing and open iterator a previous reader of the shard left (see [[FetchCursor]])
 * @param closed      Kinesis listed the shard as closed by a reshard
 * @param consumerArn read through this enhanced fan-out consumer's subscription; None: by polling
 */
private[sparkkinesis] final case class ShardFetchSpec(
    shard: ShardKey,
    from: ShardPosition,
    cursor: FetchCursor,
    closed: Boolean = false,
    consumerArn: Option[String] = None,
    end: ReadEnd = ReadEnd.Open)

private[sparkkinesis] object ShardFetchSpec {

  /** A shard read afresh from `from`: nothing open, calls allowed at once. */
  def fresh(
      shard: ShardKey,
      from: ShardPosition,
      maxRecordsPerFetch: Int,
      consumerArn: Option[String] = None,
      end: ReadEnd = ReadEnd.Open): ShardFetchSpec =
    ShardFetchSpec(shard, from, FetchCursor(None, 0L, maxRecordsPerFetch), consumerArn = consumerArn, end = end)
}
