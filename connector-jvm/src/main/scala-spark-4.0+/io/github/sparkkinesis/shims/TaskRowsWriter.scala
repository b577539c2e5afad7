// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.shims

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.DataWriter

/**
 * A writer that takes a task's rows at once: Spark 4 hands them to `writeAll` and reads the task's metrics
 * after it returns and before `commit`, so a writer that sends everything there reports exact metrics.
 */
private[sparkkinesis] trait TaskRowsWriter extends DataWriter[InternalRow] {

  /** Every row of the task, all sent before this returns. */
  def writeRows(rows: java.util.Iterator[InternalRow]): Unit

  override def writeAll(rows: java.util.Iterator[InternalRow]): Unit = writeRows(rows)
}
