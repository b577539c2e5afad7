// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.util

import org.apache.spark.sql.connector.metric.CustomSumMetric

/**
 * A custom metric that Spark sums over the tasks of a scan or a write. Spark creates metrics on the driver
 * by class name, so each is a class of its own with no constructor arguments, extending this one.
 */
private[sparkkinesis] abstract class SummedMetric(metricName: String, metricDescription: String)
    extends CustomSumMetric {
  override def name(): String = metricName
  override def description(): String = metricDescription
}
