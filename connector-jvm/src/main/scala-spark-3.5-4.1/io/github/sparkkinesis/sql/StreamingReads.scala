// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/**
 * `FROM STREAM read_kinesis(...)` is a syntax error before Spark 4.2, so every call that reaches the
 * analyzer is a batch read.
 */
private[sparkkinesis] object StreamingReads {

  def resolve(plan: LogicalPlan, provider: String): LogicalPlan = plan
}
