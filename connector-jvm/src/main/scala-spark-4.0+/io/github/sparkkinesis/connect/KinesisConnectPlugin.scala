// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.connect

import java.util.Optional

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connect.planner.SparkConnectPlanner
import org.apache.spark.sql.connect.plugin.RelationPlugin

/**
 * The connector's Spark Connect server plugin: answers the consumer manager's calls of pyspark-kinesis on a
 * Connect session ([[ConsumerManagerCall]]) with a [[ConsumerManagerCommand]], and leaves every other
 * relation extension to the server's other plugins. A server enables it with
 * `spark.connect.extensions.relation.classes=io.github.sparkkinesis.connect.KinesisConnectPlugin`, with the
 * connector on its class path from its start (`--jars` or `--packages`): the server loads its plugins
 * once, from its own class path, so a jar a client adds with `addArtifacts` serves reads and writes but not
 * the plugin. Spark 4.0 and later (Spark 3.5's plugin interface is another).
 */
final class KinesisConnectPlugin extends RelationPlugin {

  override def transform(relation: Array[Byte], planner: SparkConnectPlanner): Optional[LogicalPlan] =
    ConsumerManagerCall.fromAny(relation) match {
      case Some(call) => Optional.of(ConsumerManagerCommand(call))
      case None => Optional.empty()
    }
}
