// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import org.apache.spark.sql.execution.ui.SQLAppStatusStore
import org.apache.spark.sql.SparkSession

/** What the SQL tab of the Spark UI holds. */
object SparkStatus {
  def store(spark: SparkSession): SQLAppStatusStore = spark.sharedState.statusStore
}
