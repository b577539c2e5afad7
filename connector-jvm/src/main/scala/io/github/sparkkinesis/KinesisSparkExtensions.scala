// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import io.github.sparkkinesis.glue.GlueFunctions
import io.github.sparkkinesis.sql.{ReadKinesisFunction, ResolveKinesisReads}
import org.apache.spark.{SparkConf, SparkEnv}
import org.apache.spark.sql.SparkSessionExtensions

/**
 * The connector's SQL functions, registered in every session of a Spark started with
 * `spark.sql.extensions=io.github.sparkkinesis.KinesisSparkExtensions` (which `configure_spark_with_kinesis`
 * sets): `from_glue_registry`, `to_glue_registry` and `glue_registry_header`, and the table function
 * `read_kinesis` (renamed, or left out, by the setting `spark.kinesis.sql.readFunctionName`, read from the
 * application's configuration when Spark applies the extension, once per application).
 */
final class KinesisSparkExtensions extends (SparkSessionExtensions => Unit) {

  override def apply(extensions: SparkSessionExtensions): Unit = {
    GlueFunctions.sqlFunctions.foreach(extensions.injectFunction)
    val conf = Option(SparkEnv.get).map(_.conf).getOrElse(new SparkConf(loadDefaults = false))
    ReadKinesisFunction.name(conf).foreach { name =>
      extensions.injectTableFunction(ReadKinesisFunction.description(name))
      extensions.injectResolutionRule(session =>
        new ResolveKinesisReads(session, classOf[KinesisTableProvider].getName))
    }
  }
}
