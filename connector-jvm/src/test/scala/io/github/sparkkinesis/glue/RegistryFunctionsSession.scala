// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.errors.KinesisThrowable
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.scalatest.Suite

/**
 * A local session with the connector's session extension, whose registry functions call a registry in
 * memory (`registry`, new for each suite; the real client is back after it), and what the functions' suites
 * share: schema `shop/orders` (version 2 adds a field with a default), their options, both evaluations, the
 * connector's error among a failure's causes.
 */
trait RegistryFunctionsSession extends SparkStreamingSuite { self: Suite =>

  override protected def sparkSettings: Map[String, String] =
    Map("spark.sql.extensions" -> "io.github.sparkkinesis.KinesisSparkExtensions")

  protected var registry: FakeGlueRegistry = _

  protected val orders = SchemaRef("shop", "orders")
  protected val v1Text =
    """{"type": "record", "name": "Order", "namespace": "shop", "fields": [
      |  {"name": "id", "type": "long"}, {"name": "item", "type": "string"}]}""".stripMargin
  protected val v2Text =
    """{"type": "record", "name": "Order", "namespace": "shop", "fields": [
      |  {"name": "id", "type": "long"}, {"name": "item", "type": "string"},
      |  {"name": "price", "type": "double", "default": 0.0}]}""".stripMargin

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    registry = new FakeGlueRegistry()
    SchemaVersions.useClients(_ => registry)
  }

  override protected def afterAll(): Unit =
    try SchemaVersions.useClients(GlueRegistryClient.create)
    finally super.afterAll()

  /** The functions' options: the region, and `pairs`. */
  protected def options(pairs: (String, String)*): java.util.Map[String, String] =
    (Map("region" -> "us-east-1") ++ pairs).asJava

  /** Runs `body` with whole-stage code generation on and off: generated and interpreted evaluation alike. */
  protected def bothEvaluations(body: => Unit): Unit =
    Seq("true", "false").foreach { on =>
      spark.conf.set("spark.sql.codegen.wholeStage", on)
      try body
      finally spark.conf.unset("spark.sql.codegen.wholeStage")
    }

  /** The connector's error among the causes of what `body` throws (Spark wraps a task's). */
  protected def failure(body: => Any): Throwable with KinesisThrowable = {
    val thrown = intercept[Throwable](body)
    Iterator
      .iterate(thrown)(_.getCause)
      .takeWhile(_ != null)
      .collectFirst { case k: Throwable with KinesisThrowable => k }
      .getOrElse(fail(s"no connector error in $thrown", thrown))
  }
}
