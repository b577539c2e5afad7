// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import io.github.sparkkinesis.glue.GlueFunctions
import org.apache.spark.sql.SparkSessionExtensions

/**
 * The connector's SQL functions, registered in every session of a Spark started with
 * `spark.sql.extensions=io.github.sparkkinesis.KinesisSparkExtensions` (which `configure_spark_with_kinesis`
 * sets): `from_glue_registry` and `glue_registry_header`.
 */
final class KinesisSparkExtensions extends (SparkSessionExtensions => Unit) {

  override def apply(extensions: SparkSessionExtensions): Unit =
    GlueFunctions.sqlFunctions.foreach(extensions.injectFunction)
}
