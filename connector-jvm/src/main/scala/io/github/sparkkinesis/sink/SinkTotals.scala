// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

/**
 * What a streaming query's sink has written since the query started, summed from its tasks' commit
 * messages: shown in every query progress under `sink.metrics`. Thread-safe.
 */
private[sparkkinesis] final class SinkTotals {
  private val totals = KinesisWriteMetrics.supported.map(_.name() -> new AtomicLong()).toMap

  def add(counts: WriteCounts): Unit = counts.asMap.foreach { case (name, value) => totals(name).addAndGet(value) }

  def asProgressMetrics: java.util.Map[String, String] =
    totals.map { case (name, value) => name -> value.get.toString }.asJava
}
