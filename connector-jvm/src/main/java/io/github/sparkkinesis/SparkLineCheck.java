package io.github.sparkkinesis;

import java.util.Arrays;

/**
 * Refuses, in one line that names both versions and the artifact to use instead, a Spark or Scala other than
 * the line this jar is built for ({@link BuiltFor}). Java, calling nothing of Scala's but
 * {@code scala.util.Properties} and nothing of Spark's but its version, both alike on every line.
 */
final class SparkLineCheck {

  private SparkLineCheck() {}

  static final String ERROR_ID = "KINESIS_WRONG_SPARK_LINE";

  private static volatile boolean checked;

  /** @throws UnsupportedOperationException if this Spark is not of the jar's line */
  static void requireBuiltForThisSpark() {
    if (checked) return;
    String problem = problem(org.apache.spark.package$.MODULE$.SPARK_VERSION(),
        scala.util.Properties$.MODULE$.versionNumberString());
    if (problem != null) throw new UnsupportedOperationException(problem);
    checked = true;
  }

  /** What is wrong with running this jar on that Spark and Scala, or null if nothing is. */
  static String problem(String sparkVersion, String scalaVersion) {
    String spark = majorMinor(sparkVersion);
    String scala = majorMinor(scalaVersion);
    if (spark.equals(BuiltFor.SPARK_MINOR) && scala.equals(BuiltFor.SCALA_BINARY)) return null;
    String jar = "spark-kinesis-" + BuiltFor.SPARK_MINOR + "_" + BuiltFor.SCALA_BINARY;
    String prefix = "[" + ERROR_ID + "] This connector jar (" + jar + " " + BuiltFor.VERSION
        + ") is built for Spark " + BuiltFor.SPARK_MINOR + " with Scala " + BuiltFor.SCALA_BINARY
        + ", and this is Spark " + sparkVersion + " with Scala " + scalaVersion + ": ";
    String line = spark + "_" + scala;
    if (Arrays.asList(BuiltFor.LINES).contains(line)) {
      return prefix + "use " + BuiltFor.GROUP + ":spark-kinesis-" + line + ":" + BuiltFor.VERSION
          + " instead (for example spark-submit --packages " + BuiltFor.GROUP + ":spark-kinesis-" + line
          + ":" + BuiltFor.VERSION + "), or pyspark-kinesis' configure_spark_with_kinesis, which picks it.";
    }
    return prefix + "there is no spark-kinesis for it; spark-kinesis is built for "
        + String.join(", ", BuiltFor.LINES) + " (Spark_Scala).";
  }

  /** "3.5.9" is "3.5"; "2.13.8" is "2.13". */
  private static String majorMinor(String version) {
    String[] parts = version.split("\\.");
    return parts.length < 2 ? version : parts[0] + "." + parts[1];
  }
}
