// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import org.apache.spark.sql.catalyst.analysis.NamedStreamingRelation
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnresolvedDataSource}
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap

/**
 * `FROM STREAM read_kinesis(...)`, which Spark parses since 4.2 into the call under a
 * `NamedStreamingRelation`: the call becomes the node `spark.readStream.format(...).load()` makes, so that
 * Spark resolves it as it resolves that read (the source's name from `IDENTIFIED BY` included). `provider`
 * is the provider's class name, so that no other jar's `kinesis` can take the read.
 */
private[sparkkinesis] object StreamingReads {

  def resolve(plan: LogicalPlan, provider: String): LogicalPlan = plan.resolveOperatorsUp {
    case streaming @ NamedStreamingRelation(KinesisReadCall(options), _) =>
      streaming.copy(child = UnresolvedDataSource(provider, None, CaseInsensitiveMap(options), true, Nil))
  }
}
