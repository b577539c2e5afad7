// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * One shard of a prefetch task: where its data starts and how to go on reading it.
 *
 * @param closed      Kinesis listed the shard as closed by a reshard
 * @param consumerArn read through this enhanced fan-out consumer's subscription; None: by polling
 */
private[sparkkinesis] final case class ShardFetchSpec(
    shard: ShardKey,
    from: ShardPosition,
    cursor: FetchCursor,
    closed: Boolean = false,
    consumerArn: Option[String] = None)
