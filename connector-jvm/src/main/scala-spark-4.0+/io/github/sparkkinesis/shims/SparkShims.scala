// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.shims

import org.apache.spark.sql.connector.read.streaming.{ReadLimit, ReadMaxBytes}
import org.apache.spark.SparkThrowable

/** What differs in Spark 4 from the API the shared code is written to. */
private[sparkkinesis] object SparkShims {

  /** A Spark error's condition (Spark 4 renamed 3.5's error class so). */
  def errorCondition(e: SparkThrowable): Option[String] = Option(e.getCondition)

  /** A limit of bytes per batch: Spark's own since 4.0. */
  def maxBytesLimit(bytes: Long): ReadLimit = ReadLimit.maxBytes(bytes)

  /** The bytes a limit allows, if it is a limit of bytes. */
  def maxBytesOf(limit: ReadLimit): Option[Long] = limit match {
    case bytes: ReadMaxBytes => Some(bytes.maxBytes())
    case _ => None
  }
}
