package io.github.sparkkinesis;

import java.util.Map;

import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The entry point Spark finds for {@code format("kinesis")}, reading and writing.
 *
 * <p>Java, and touching nothing but Java and Spark's data source interfaces until it has checked that this
 * Spark is the line the jar is built for ({@link SparkLineCheck}): Spark instantiates every registered data
 * source when it looks one up, so this class must load on any Spark and Scala, and a jar on the wrong Spark
 * must say so in one line rather than fail ten frames deep in Scala's or Spark's classes.
 *
 * <p>Spark asks it for the table the same way for {@code .load()} and for {@code .save()}/{@code .start()},
 * so every option value given is checked there (see {@code KinesisTable}). Driver side; stateless.
 */
public final class KinesisTableProvider implements TableProvider, DataSourceRegister {

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
}
