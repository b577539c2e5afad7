// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis;

import io.github.sparkkinesis.errors.KinesisException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Refuses, in one line that names both versions and the artifact to use instead, a Spark or Scala other than
 * the line this jar is built for ({@link BuiltFor}). Java, calling nothing of Scala's but
 * {@code scala.util.Properties} and nothing of Spark's but its version and {@code SparkThrowable}, all alike on
 * every line.
 */
final class SparkLineCheck {

  private SparkLineCheck() {}

  private static volatile boolean checked;

  /** @throws KinesisException KINESIS_WRONG_SPARK_LINE if this Spark is not of the jar's line */
  static void requireBuiltForThisSpark() {
    if (checked) return;
    Map<String, String> problem = problem(org.apache.spark.package$.MODULE$.SPARK_VERSION(),
        scala.util.Properties$.MODULE$.versionNumberString());
    if (problem != null) throw new KinesisException("KINESIS_WRONG_SPARK_LINE", problem, null);
    checked = true;
  }

  /** The parameters of the error for running this jar on that Spark and Scala, or null if it may. */
  static Map<String, String> problem(String sparkVersion, String scalaVersion) {
    String spark = majorMinor(sparkVersion);
    String scala = majorMinor(scalaVersion);
    if (spark.equals(BuiltFor.SPARK_MINOR) && scala.equals(BuiltFor.SCALA_BINARY)) return null;
    Map<String, String> parameters = new LinkedHashMap<>();
    parameters.put("jar", "spark-kinesis-" + BuiltFor.SPARK_MINOR + "_" + BuiltFor.SCALA_BINARY);
    parameters.put("version", BuiltFor.VERSION);
    parameters.put("builtSpark", BuiltFor.SPARK_MINOR);
    parameters.put("builtScala", BuiltFor.SCALA_BINARY);
    parameters.put("spark", sparkVersion);
    parameters.put("scala", scalaVersion);
    String line = spark + "_" + scala;
    String coordinates = BuiltFor.GROUP + ":spark-kinesis-" + line + ":" + BuiltFor.VERSION;
    parameters.put("advice", Arrays.asList(BuiltFor.LINES).contains(line)
        ? "use " + coordinates + " instead (for example spark-submit --packages " + coordinates
            + "), or pyspark-kinesis' configure_spark_with_kinesis, which picks it."
        : "there is no spark-kinesis for it; spark-kinesis is built for " + String.join(", ", BuiltFor.LINES)
            + " (Spark_Scala).");
    return parameters;
  }

  /** "3.5.9" is "3.5"; "2.13.8" is "2.13". */
  private static String majorMinor(String version) {
    String[] parts = version.split("\\.");
    return parts.length < 2 ? version : parts[0] + "." + parts[1];
  }
}
