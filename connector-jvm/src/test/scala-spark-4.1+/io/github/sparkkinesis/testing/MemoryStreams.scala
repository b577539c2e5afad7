// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

/** Spark's in-memory streaming source, for streaming writes in tests (in `runtime` since Spark 4.1). */
object MemoryStreams {
  type MemoryStream[A] = org.apache.spark.sql.execution.streaming.runtime.MemoryStream[A]
  val MemoryStream = org.apache.spark.sql.execution.streaming.runtime.MemoryStream
}
