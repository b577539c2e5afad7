// SPDX-License-Identifier: Apache-2.0
import java.io.File

import scala.io.Source

/**
 * A Spark line the connector is built for, as `project/spark-lines.tsv` declares it (the one place that lists
 * the lines; dev/spark_lines.py reads the same file for the scripts).
 */
final case class SparkLine(
    id: String,
    sparkVersion: String,
    scalaVersion: String,
    javaRelease: Int,
    python: String,
    jarsFrom: String,
    shims: Seq[String],
    connect: String) {

  /** Spark's major.minor, as in the artifact name: "3.5". */
  def sparkMinor: String = sparkVersion.split('.').take(2).mkString(".")

  /** Scala's binary version: "2.12". */
  def scalaBinary: String = scalaVersion.split('.').take(2).mkString(".")

  /** The sbt project of the line: "spark35_212". */
  def projectId: String = "spark" + id.replace(".", "")

  /** The artifact's name without the Scala suffix, which sbt adds: "spark-kinesis-3.5". */
  def artifactBase: String = s"spark-kinesis-$sparkMinor"

  def sparkFromMaven: Boolean = jarsFrom == "maven"

  /** The spark-connect version from Maven Central the line's Connect plugin compiles against, if it has one. */
  def connectFromMaven: Option[String] = Some(connect).filterNot(c => c == "-" || c == "pyspark")
}

object SparkLines {

  def read(table: File): Seq[SparkLine] = {
    val source = Source.fromFile(table, "UTF-8")
    try {
      source
        .getLines()
        .map(_.trim)
        .filter(l => l.nonEmpty && !l.startsWith("#"))
        .map { row =>
          row.split("\\s+") match {
            case Array(id, spark, scala, java, python, jars, shims, connect) =>
              require(jars == "maven" || jars == "pyspark", s"$table: jars is maven or pyspark, not $jars")
              require(
                (connect == "pyspark") == (jars == "pyspark"),
                s"$table: connect is pyspark exactly when jars is, in: $row")
              SparkLine(id, spark, scala, java.toInt, python, jars, shims.split(',').toSeq, connect)
            case other => sys.error(s"$table: expected 8 columns, got ${other.length} in: $row")
          }
        }
        .toList
    } finally source.close()
  }
}
