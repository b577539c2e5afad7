// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import org.apache.spark.sql.execution.ui.SQLAppStatusStore
import org.apache.spark.sql.SparkSession

/** What the SQL tab of the Spark UI holds (the shared state is the classic session's since Spark 4). */
object SparkStatus {
  def store(spark: SparkSession): SQLAppStatusStore =
    spark.asInstanceOf[org.apache.spark.sql.classic.SparkSession].sharedState.statusStore
}
