// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.shims

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.DataWriter

/**
 * A writer that can take a task's rows at once. Spark 3.5 hands them over one `write` at a time and has no
 * `writeAll`: it reads a task's metrics after the last `write` and before `commit`, so records still in
 * flight then are counted only by the commit (in streaming progress), not in the SQL UI.
 */
private[sparkkinesis] trait TaskRowsWriter extends DataWriter[InternalRow] {

  /** Every row of the task, all sent before this returns; Spark 3.5 never calls it. */
  def writeRows(rows: java.util.Iterator[InternalRow]): Unit
}
