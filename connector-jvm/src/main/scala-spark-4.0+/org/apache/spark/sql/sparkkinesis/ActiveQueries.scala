// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.sparkkinesis

import java.util.UUID

import org.apache.spark.sql.classic
import org.apache.spark.sql.streaming.StreamingQueryProgress
import org.apache.spark.sql.SparkSession

/**
 * The streaming queries running in this JVM, their names and last progress, from the session state every
 * classic session shares (`private[sql]`, which is why this object lives in a package of Spark's). A query's
 * stream runs in a clone of the session that started it, whose `streams` does not list it; the shared state
 * does, from before its thread starts until after its sources stop. It is the connector's own, not an API.
 */
object ActiveQueries {

  /** The name of the running query with this id, None if it has none (or is not running). */
  def nameOf(id: UUID): Option[String] = running(id).flatMap(query => Option(query.name))

  /**
   * The last progress of the running query with this id, None before its first (or if it is not running).
   * Spark makes one at every trigger with data, and every `spark.sql.streaming.noDataProgressEventInterval`
   * while the query is idle, when it tells listeners of the idleness alone.
   */
  def lastProgressOf(id: UUID): Option[StreamingQueryProgress] = running(id).flatMap(q => Option(q.lastProgress))

  private def running(id: UUID) =
    SparkSession.getActiveSession
      .orElse(SparkSession.getDefaultSession)
      .collect { case session: classic.SparkSession => session }
      .flatMap(session => Option(session.sharedState.activeStreamingQueries.get(id)))
}
