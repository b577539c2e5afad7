// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.shims

import org.apache.spark.sql.connector.read.streaming.ReadLimit
import org.apache.spark.SparkThrowable

/** What differs in Spark 3.5 from the API the shared code is written to. */
private[sparkkinesis] object SparkShims {

  /** A Spark error's condition; Spark 3.5 calls it the error class. */
  def errorCondition(e: SparkThrowable): Option[String] = Option(e.getErrorClass)

  /**
   * A limit of bytes per batch. Spark 3.5 has no `ReadMaxBytes` (4.0 added it), but it hands a source's
   * default read limit back to the source as it is, so the source's own limit type serves.
   */
  def maxBytesLimit(bytes: Long): ReadLimit = MaxBytes(bytes)

  /** The bytes a limit allows, if it is a limit of bytes. */
  def maxBytesOf(limit: ReadLimit): Option[Long] = limit match {
    case MaxBytes(bytes) => Some(bytes)
    case _ => None
  }

  private final case class MaxBytes(bytes: Long) extends ReadLimit {
    override def toString: String = s"MaxBytes: $bytes"
  }
}
