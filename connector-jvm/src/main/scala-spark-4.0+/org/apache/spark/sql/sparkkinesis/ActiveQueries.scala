// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.sparkkinesis

import java.util.UUID

import org.apache.spark.sql.classic
import org.apache.spark.sql.SparkSession

/**
 * The names of the streaming queries running in this JVM, from the session state every classic session
 * shares (`private[sql]`, which is why this object lives in a package of Spark's). A query's stream runs in
 * a clone of the session that started it, whose `streams` does not list it; the shared state does, from
 * before its thread starts until after its sources stop. It is the connector's own, not an API.
 */
object ActiveQueries {

  /** The name of the running query with this id, None if it has none (or is not running). */
  def nameOf(id: UUID): Option[String] =
    SparkSession.getActiveSession
      .orElse(SparkSession.getDefaultSession)
      .collect { case session: classic.SparkSession => session }
      .flatMap(session => Option(session.sharedState.activeStreamingQueries.get(id)))
      .flatMap(query => Option(query.name))
}
