// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.testing.ExecutorProcesses
import org.scalatest.Suite

/**
 * A cluster of two executor JVMs besides the driver (`local-cluster`, each one core), loading the connector
 * jar as a user's cluster would: prefetched blocks live in other JVMs than the driver, and batches read them
 * from there. A worker relaunches an executor whose JVM dies, under a new id.
 */
trait ClusterIntegration extends SourceIntegration { self: Suite =>

  override protected def sparkMaster: String = "local-cluster[2,1,1024]"

  override protected def sparkSettings: Map[String, String] = Map(
    "spark.jars" -> sys.props("kinesis.test.connectorJar"),
    "spark.executor.extraJavaOptions" -> "-Daws.ec2MetadataDisabled=true",
    // Four cores as Spark counts them: prefetch jobs take two tasks at once, one per executor.
    "spark.default.parallelism" -> "4"
  )

  /**
   * Enhanced fan-out from TRIM_HORIZON on the executors: prefetch tasks of 200 ms over two shards each, whose
   * subscriptions stay open in their executor for the next task (which goes where they are); the consumer is
   * deregistered when the query stops.
   */
  protected val efoOnExecutors: Seq[(String, String)] = Seq(
    "initialPosition" -> "trim_horizon",
    "consumerMode" -> "efo",
    "requireConsumerDeregistration" -> "true",
    "shardsPerTask" -> "2",
    "maxFetchDuration" -> "200ms")

  override protected def afterAll(): Unit = {
    val app = Option(spark).map(_.sparkContext.applicationId)
    try super.afterAll()
    finally app.foreach(ExecutorProcesses.removeWorkFolder)
  }
}
