// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import io.github.sparkkinesis.batch.KinesisRelation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.SparkSession

/**
 * Turns each `read_kinesis` call ([[KinesisReadCall]]) into a read: under `FROM STREAM` (Spark 4.2 and
 * later, [[StreamingReads]]) the stream `spark.readStream.format("kinesis")` gives, otherwise the batch read
 * `spark.read.format("kinesis")` gives, its options checked now, at analysis, as `.load()` checks them.
 * Injected into the analyzer's resolution rules by the session extension, which names the source's provider
 * class (`provider`) for the streaming form.
 */
private[sparkkinesis] final class ResolveKinesisReads(session: SparkSession, provider: String)
    extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!plan.exists(_.isInstanceOf[KinesisReadCall])) plan
    else
      StreamingReads.resolve(plan, provider).resolveOperatorsUp { case KinesisReadCall(options) =>
        LogicalRelation(KinesisRelation(session.sqlContext, options), isStreaming = false)
      }
}
