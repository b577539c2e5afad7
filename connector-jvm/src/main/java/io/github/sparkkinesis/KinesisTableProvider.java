// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis;

import java.util.Map;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.execution.streaming.Source;
import org.apache.spark.sql.sources.BaseRelation;
import org.apache.spark.sql.sources.CreatableRelationProvider;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.sources.RelationProvider;
import org.apache.spark.sql.sources.StreamSourceProvider;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Option;
import scala.Tuple2;

/**
 * The entry point Spark finds for {@code format("kinesis")}, reading and writing.
 *
 * <p>Java, and touching nothing but Java and Spark's data source interfaces until it has checked that this
 * Spark is the line the jar is built for ({@link SparkLineCheck}): Spark instantiates every registered data
 * source when it looks one up, so this class must load on any Spark and Scala, and a jar on the wrong Spark
 * must say so in one line rather than fail ten frames deep in Scala's or Spark's classes.
 *
 * <p>Spark asks it for the table the same way for {@code .load()} and for {@code .save()}/{@code .start()},
 * so every option value given is checked there (see {@code KinesisTable}). Two of Spark's DataSource V1
 * interfaces serve what V2 cannot tell apart, as in Spark's Kafka source: {@link StreamSourceProvider}'s
 * {@code sourceSchema}, which {@code readStream...load()} alone calls, checks the source's whole
 * configuration (a missing {@code streamName} fails at {@code .load()}, not when the query starts);
 * {@link RelationProvider} serves batch reads ({@code spark.read}, and SQL's {@code USING kinesis}), whose
 * options it checks as {@code .load()} creates the relation (the table declares no batch reads, so Spark
 * asks for this one); and {@link CreatableRelationProvider} takes batch writes in every save mode, so that the default mode and
 * Append write and Overwrite and Ignore are refused with a reason (see {@code KinesisBatchWrites}).
 * Driver side; stateless.
 */
public final class KinesisTableProvider
    implements TableProvider,
        DataSourceRegister,
        StreamSourceProvider,
        RelationProvider,
        CreatableRelationProvider {

  @Override
  public String shortName() {
    return "kinesis";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    SparkLineCheck.requireBuiltForThisSpark();
    return KinesisTable.recordSchema();
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    SparkLineCheck.requireBuiltForThisSpark();
    return KinesisTable.fromProperties(properties);
  }

  @Override
  public Tuple2<String, StructType> sourceSchema(
      SQLContext sqlContext,
      Option<StructType> schema,
      String providerName,
      scala.collection.immutable.Map<String, String> parameters) {
    SparkLineCheck.requireBuiltForThisSpark();
    return KinesisTable.sourceSchema(schema, parameters);
  }

  /** Never called while the V2 source serves reads: Spark uses it only if told not to use V2. */
  @Override
  public Source createSource(
      SQLContext sqlContext,
      String metadataPath,
      Option<StructType> schema,
      String providerName,
      scala.collection.immutable.Map<String, String> parameters) {
    SparkLineCheck.requireBuiltForThisSpark();
    throw io.github.sparkkinesis.errors.KinesisErrors.v1SourceUnsupported();
  }

  @Override
  public BaseRelation createRelation(
      SQLContext sqlContext, scala.collection.immutable.Map<String, String> parameters) {
    SparkLineCheck.requireBuiltForThisSpark();
    return KinesisTable.batchRelation(sqlContext, parameters);
  }

  @Override
  public BaseRelation createRelation(
      SQLContext sqlContext,
      SaveMode mode,
      scala.collection.immutable.Map<String, String> parameters,
      Dataset<Row> data) {
    SparkLineCheck.requireBuiltForThisSpark();
    return KinesisBatchWrites.save(sqlContext, mode, parameters, data);
  }
}
