// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sparkkinesis

import com.codahale.metrics.MetricRegistry
import org.apache.spark.metrics.source.Source
import org.apache.spark.SparkEnv

/**
 * The connector's only door into Spark's metric system, whose `Source` is private to the `org.apache.spark`
 * package: a registry of gauges becomes a source of the driver's metrics system, so that the sinks of
 * `spark.metrics.conf` (Prometheus servlet, JMX, CSV, Graphite, ...) export it. Gauges added to or removed
 * from the registry after it is registered are added and removed there too (Dropwizard follows a child
 * registry). Driver side; thread-safe, as the metrics system is.
 */
object SparkMetricsSystem {

  /**
   * Registers `gauges` as the source `sourceName` of this JVM's metrics system; returns what removes it, or
   * None without a running Spark. Spark removes a source by its name's prefix: no other source's name may
   * start with this one's (see `source.QueryGauges`).
   */
  def register(sourceName: String, gauges: MetricRegistry): Option[() => Unit] =
    Option(SparkEnv.get).map { env =>
      val source = new GaugeSource(sourceName, gauges)
      env.metricsSystem.registerSource(source)
      () => env.metricsSystem.removeSource(source)
    }

  private final class GaugeSource(override val sourceName: String, override val metricRegistry: MetricRegistry)
      extends Source
}
