// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import org.apache.spark.sql.SparkSession

/**
 * What the Python package's `publish_metrics_to_cloudwatch` calls over py4j: adds a
 * [[CloudWatchMetricsListener]] to a session's queries. Driver side.
 */
private[sparkkinesis] object CloudWatchPublishing {

  /**
   * Adds a listener with `settings` (keys without `spark.kinesis.cloudwatch.`) over the session's
   * configuration, in place of any such listener the session has (one made from the configuration too), so
   * that no figure is published twice. Refuses bad settings before it removes anything. Returns the listener.
   */
  def addTo(session: SparkSession, settings: java.util.Map[String, String]): CloudWatchMetricsListener = {
    val listener = new CloudWatchMetricsListener(
      CloudWatchMetricsListener.settingsOf(session.sparkContext.getConf, settings))
    CloudWatchMetricsListener.on(session.streams.listListeners()).foreach { earlier =>
      session.streams.removeListener(earlier)
      earlier.close()
    }
    session.streams.addListener(listener)
    listener
  }
}
