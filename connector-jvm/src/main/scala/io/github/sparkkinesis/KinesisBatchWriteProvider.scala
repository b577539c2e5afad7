// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.{util => ju}

import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * The table [[KinesisBatchWrites]] appends a batch write's rows to: `format("kinesis")`'s table, with batch
 * writes. Not registered as a data source; named by its class alone.
 */
private[sparkkinesis] final class KinesisBatchWriteProvider extends TableProvider {

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = KinesisTable.recordSchema()

  override def getTable(schema: StructType, partitioning: Array[Transform], properties: ju.Map[String, String]): Table =
    KinesisTable.forBatchWrites(properties)
}
