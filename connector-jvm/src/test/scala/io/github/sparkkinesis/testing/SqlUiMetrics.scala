// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import scala.util.Try

import io.github.sparkkinesis.sink.KinesisWriteMetrics
import org.apache.spark.sql.SparkSession

/** What the SQL tab of the Spark UI shows for the sink, as the tests and the write benchmark read it. */
object SqlUiMetrics {

  /**
   * The sink's metrics of the session's last query, by metric name (the UI shows them by description),
   * once Spark's listener has taken in the finished job; fails after `timeoutMs` without all of them.
   */
  def lastWrite(spark: SparkSession, timeoutMs: Long = 30000): Map[String, Long] = {
    val byDescription = KinesisWriteMetrics.supported.map(m => m.description() -> m.name()).toMap
    val store = SparkStatus.store(spark)
    val deadline = System.nanoTime() + timeoutMs * 1000000
    var found = Map.empty[String, Long]
    while (found.size < byDescription.size) {
      if (System.nanoTime() > deadline)
        throw new AssertionError(s"the last query's sink metrics did not all reach the UI's store: $found")
      Thread.sleep(50)
      val execution = store.executionsList().maxBy(_.executionId)
      val names = execution.metrics.flatMap(m => byDescription.get(m.name).map(m.accumulatorId -> _)).toMap
      found = store.executionMetrics(execution.executionId).flatMap { case (id, value) =>
        names.get(id).flatMap(name => Try(value.replaceAll("[^0-9]", "").toLong).toOption.map(name -> _))
      }
    }
    found
  }
}
