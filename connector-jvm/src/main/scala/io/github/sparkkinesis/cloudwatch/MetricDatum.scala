// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

/**
 * One data point for CloudWatch: a figure of one Kinesis source of one query progress. Immutable.
 *
 * @param name            the metric's name, as the progress names the figure (`maxMsBehindLatest`, ...)
 * @param unit            CloudWatch's unit: `Milliseconds`, `Seconds`, `Count` or `Bytes`
 * @param dimensions      `Query` (its name, or its id when it has none) and `Stream`, in that order
 * @param value           the figure
 * @param timestampMillis when the progress was reported
 */
private[sparkkinesis] final case class MetricDatum(
    name: String,
    unit: String,
    dimensions: Seq[(String, String)],
    value: Double,
    timestampMillis: Long)
