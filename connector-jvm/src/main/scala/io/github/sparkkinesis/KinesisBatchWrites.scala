// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import io.github.sparkkinesis.errors.KinesisErrors
import org.apache.spark.sql.{DataFrame, SQLContext, SaveMode}
import org.apache.spark.sql.sources.BaseRelation
import org.apache.spark.sql.types.StructType

/**
 * Batch writes by save mode, as Spark's Kafka sink takes them: the default mode (ErrorIfExists) and Append
 * add the rows to the stream, since a stream always exists and is only ever appended to; Overwrite and
 * Ignore are refused with a reason. Spark hands every batch write of `format("kinesis")` to the provider's
 * DataSource V1 `createRelation` (its table declares no batch writes); the rows are then written as a
 * DataSource V2 Append to [[KinesisBatchWriteProvider]]'s table, with the sink's tasks, commit and metrics.
 * Driver side.
 */
private[sparkkinesis] object KinesisBatchWrites {

  def save(sqlContext: SQLContext, mode: SaveMode, parameters: Map[String, String], data: DataFrame): BaseRelation = {
    mode match {
      case SaveMode.Overwrite =>
        throw KinesisErrors.saveModeUnsupported("Overwrite", "a Kinesis stream cannot be emptied, only added to")
      case SaveMode.Ignore =>
        throw KinesisErrors.saveModeUnsupported(
          "Ignore",
          "a Kinesis stream always exists, so Ignore would write nothing, silently")
      case SaveMode.Append | SaveMode.ErrorIfExists =>
        data.write
          .format(classOf[KinesisBatchWriteProvider].getName)
          .mode(SaveMode.Append)
          .options(parameters)
          .save()
    }
    new WrittenRelation(sqlContext, data.schema)
  }

  /** What `createRelation` must return; Spark does not read it after a write. */
  private final class WrittenRelation(context: SQLContext, written: StructType) extends BaseRelation {
    override def sqlContext: SQLContext = context
    override def schema: StructType = written
  }
}
