// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.batch

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.client.{ClientUse, KinesisApi, KinesisClientFactory}
import io.github.sparkkinesis.config.KinesisBatchReadConfig
import io.github.sparkkinesis.source.KinesisRecordSchema
import io.github.sparkkinesis.util.{Clock, Dealing, SystemClock}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{Row, SQLContext, SparkSession}
import org.apache.spark.sql.sources.{BaseRelation, TableScan}
import org.apache.spark.sql.types.StructType

/**
 * A batch read of Kinesis streams (`spark.read.format("kinesis")`, or `CREATE TEMPORARY VIEW ... USING
 * kinesis`), with the rows of a stream. Its options were checked at `.load()` ([[KinesisBatchReadConfig]]);
 * no call to Kinesis is made until a query runs. Each run plans the ranges anew ([[BatchPlanner]]): with
 * `endPosition` latest, a later action sees the records that arrived since. The ranges are dealt in turn to
 * as many tasks as the application has cores (Spark's default parallelism), or `maxPartitions`, in lineage
 * order. A DataSource V1 relation, as Spark's Kafka source reads batches, so that options are checked when
 * the DataFrame is created and SQL's `USING kinesis` works on every Spark line; its rows are Spark's internal
 * rows, not converted. Driver side.
 */
private[sparkkinesis] final class KinesisRelation(
    override val sqlContext: SQLContext,
    config: KinesisBatchReadConfig,
    newApi: AwsConfig => KinesisApi = KinesisClientFactory.create(_, ClientUse.Reading),
    clock: Clock = SystemClock,
    cores: () => Int = () => SparkSession.active.sparkContext.defaultParallelism)
    extends BaseRelation
    with TableScan {

  override def schema: StructType = KinesisRecordSchema.schema

  /** The RDD's rows are `InternalRow`s already. */
  override val needConversion: Boolean = false

  override def buildScan(): RDD[Row] = {
    val api = newApi(config.aws)
    val ranges =
      try BatchPlanner.plan(config, api, clock)
      finally api.close()
    // As many tasks as the application runs at once (or maxPartitions), each reading its ranges together: a
    // shard is read at most at Kinesis' rate for it, so a core reading one shard at a time would mostly wait.
    val tasks = Dealing.inTurn(ranges.toIndexedSeq, config.maxPartitions.getOrElse(cores()))
    new KinesisBatchRDD(sqlContext.sparkContext, tasks, config.aws, config.reading)
      .setName(config.description)
      .asInstanceOf[RDD[Row]]
  }

  override def toString: String = config.description
}

private[sparkkinesis] object KinesisRelation {

  /**
   * The batch read of `options` (`spark.read`'s, SQL `read_kinesis`'s), checked at once; the default region
   * asked of the SDK's chain only when neither `region` nor `endpoint` names one.
   */
  def apply(sqlContext: SQLContext, options: Map[String, String]): KinesisRelation =
    new KinesisRelation(sqlContext, KinesisBatchReadConfig(options, () => KinesisClientFactory.defaultRegion()))
}
