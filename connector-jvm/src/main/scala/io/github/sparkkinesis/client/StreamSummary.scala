// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/** What DescribeStreamSummary says of a stream; `openShards` is its count of open shards. */
private[sparkkinesis] final case class StreamSummary(
    name: String,
    arn: String,
    status: String,
    createdAtMillis: Long,
    openShards: Int)
