// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.packaging

import java.lang.reflect.Modifier
import java.util.zip.ZipFile

import scala.jdk.CollectionConverters._
import scala.reflect.runtime.{universe => ru}

import org.scalatest.funsuite.AnyFunSuite

/**
 * The connector's public API is what users call, and grows only on purpose: every other type is
 * `private[sparkkinesis]` (Scala) or package-private (Java). Scala's qualified privacy is public in the class
 * files, which is how Spark, py4j and the Python package still reach those types; the Scala signature keeps
 * it, and that is what this suite reads.
 */
class PublicApiSuite extends AnyFunSuite {

  /** The public types, each with why it is public. Add to it only what users are meant to call. */
  private val api = Map(
    "io.github.sparkkinesis.KinesisTableProvider" -> "format(\"kinesis\"), found by Spark's service loader",
    "io.github.sparkkinesis.api.KinesisConsumerManager" -> "the consumer manager, from Scala, Java and Python",
    "io.github.sparkkinesis.api.KinesisConsumerManager$" -> "its factory methods",
    "io.github.sparkkinesis.api.KinesisConsumerManager$Builder" -> "its builder",
    "io.github.sparkkinesis.errors.KinesisThrowable" -> "what every error of the connector is",
    "io.github.sparkkinesis.errors.KinesisException" -> "the connector's errors",
    "io.github.sparkkinesis.errors.KinesisIllegalArgumentException" -> "the connector's errors of bad options",
    "io.github.sparkkinesis.errors.ErrorDetails" -> "an error's condition and parameters, as KinesisThrowable has",
    "io.github.sparkkinesis.functions$" -> "the column functions (from_glue_registry, ...), from Scala, Java, Python",
    "io.github.sparkkinesis.KinesisSparkExtensions" -> "the session extension of the SQL functions, named in settings",
    "io.github.sparkkinesis.cloudwatch.CloudWatchMetricsListener" ->
      "the query listener that publishes the source's metrics to CloudWatch, named in settings",
    "org.apache.spark.sparkkinesis.SparkBlocks$" ->
      "the bridge to Spark's block manager: in Spark's package, so it cannot be private to the connector's",
    "org.apache.spark.sql.sparkkinesis.ColumnExpressions$" ->
      "the bridge between columns and the functions' expressions: in Spark's package, for the same reason",
    "org.apache.spark.sparkkinesis.SparkMetricsSystem$" ->
      "the bridge to Spark's metric system (the source's gauges): in Spark's package, for the same reason",
    "org.apache.spark.sql.sparkkinesis.ActiveQueries$" ->
      "the names of the running streaming queries: in Spark's package, for the same reason"
  ) ++ (if (!hasConnectPlugin) Map.empty
        else
          Map(
            "io.github.sparkkinesis.connect.KinesisConnectPlugin" ->
              "the Spark Connect server plugin, named in the server's configuration"))

  /** Whether this line's jar has the Spark Connect plugin: the lines whose Spark Connect server runs it. */
  private def hasConnectPlugin: Boolean =
    try {
      Class.forName("org.apache.spark.sql.connect.plugin.RelationPlugin", false, getClass.getClassLoader)
      true
    } catch { case _: ClassNotFoundException => false }

  private val mirror = ru.runtimeMirror(getClass.getClassLoader)

  /** The connector's classes in the jar users load, by binary name, without the shaded dependencies. */
  private val classes: Vector[String] = {
    val jar = new ZipFile(sys.props("kinesis.test.connectorJar"))
    try
      jar
        .entries()
        .asScala
        .map(_.getName)
        .filter(n => n.endsWith(".class") && !n.contains("/shaded/"))
        .filter { n =>
          Seq("io/github/sparkkinesis/", "org/apache/spark/sparkkinesis/", "org/apache/spark/sql/sparkkinesis/")
            .exists(n.startsWith)
        }
        .map(_.stripSuffix(".class").replace('/', '.'))
        .toVector
    finally jar.close()
  }

  private def isScala(c: Class[_]): Boolean =
    c.isAnnotationPresent(classOf[scala.reflect.ScalaSignature]) ||
      c.isAnnotationPresent(classOf[scala.reflect.ScalaLongSignature])

  /** Whether Scala code outside the connector can use the type, as its Scala signature says. */
  private def publicInScala(symbol: ru.Symbol): Boolean =
    symbol.isPublic && symbol.privateWithin == ru.NoSymbol && (symbol.owner.isPackage || publicInScala(symbol.owner))

  /**
   * The types a user of the jar can name: Java types public in the class file, and Scala types public in
   * their Scala signature; an object's class (`Name$`) stands for the object. Anonymous and local classes
   * are no one's API.
   */
  private def publicTypes: Vector[String] = classes.flatMap { name =>
    val c = Class.forName(name, false, getClass.getClassLoader)
    val local = c.isAnonymousClass || c.isLocalClass || c.isSynthetic || name.matches(""".*\$\d.*""")
    if (local || !Modifier.isPublic(c.getModifiers)) None
    else if (name.endsWith("$")) {
      val module = mirror.moduleSymbol(c)
      if (publicInScala(module)) Some(name) else None
    } else if (isScala(c) || name.contains("$")) {
      // An object without a companion class has a class of its name too, holding static forwarders.
      val forwarders = classes.contains(name + "$") && mirror.staticModule(name).companion == ru.NoSymbol
      if (!forwarders && publicInScala(mirror.classSymbol(c))) Some(name) else None
    } else Some(name) // Java
  }

  test("the public API is the table provider, the consumer manager and the errors; nothing else") {
    val public = publicTypes.toSet
    val unexpected = (public -- api.keySet).toVector.sorted
    assert(
      unexpected.isEmpty,
      s"public types that are not the connector's API: ${unexpected.mkString(", ")}. Make them " +
        "private[sparkkinesis], or list them in PublicApiSuite.api if users are meant to call them."
    )
    val missing = (api.keySet -- public).toVector.sorted
    assert(missing.isEmpty, s"the API lost types users call: ${missing.mkString(", ")}")
  }

  test("the suite tells private types from public ones") {
    assert(classes.contains("io.github.sparkkinesis.KinesisTable"), "the connector's classes are listed")
    assert(!publicTypes.contains("io.github.sparkkinesis.KinesisTable"))
    assert(!publicTypes.contains("io.github.sparkkinesis.errors.ErrorConditions"))
  }
}
