// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import io.github.sparkkinesis.errors.KinesisThrowable
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.apache.spark.sql.catalyst.expressions.{Literal, NamedArgumentExpression}
import org.apache.spark.sql.types.Decimal
import org.apache.spark.SparkConf
import org.scalatest.funsuite.AnyFunSuite

/**
 * `read_kinesis`'s arguments, as a SQL user writes them: named, constant, the source's options; what is
 * refused, and how; its description; the setting that names it. Nothing here calls Kinesis: the options
 * point at a closed port, and every refusal comes at analysis.
 */
class ReadKinesisFunctionSuite extends AnyFunSuite with SparkStreamingSuite {

  override protected def sparkSettings: Map[String, String] =
    Map("spark.sql.extensions" -> "io.github.sparkkinesis.KinesisSparkExtensions")

  private val where = "region => 'us-east-1', endpoint => 'http://127.0.0.1:9'"

  /** The connector's error that analysing `query` fails with. */
  private def refusal(query: String): Throwable with KinesisThrowable = {
    val thrown = intercept[Throwable](spark.sql(query))
    Iterator
      .iterate(thrown)(_.getCause)
      .takeWhile(_ != null)
      .collectFirst { case k: Throwable with KinesisThrowable => k }
      .getOrElse(throw new AssertionError(s"not the connector's error: $thrown", thrown))
  }

  test("typed constants become the option strings the source's parsers read") {
    val options = ReadKinesisFunction.optionsOf(
      "read_kinesis",
      Seq(
        NamedArgumentExpression("streamName", Literal("orders")),
        NamedArgumentExpression("maxFetchRate", Literal(Decimal(BigDecimal("1.5")))),
        NamedArgumentExpression("failOnDataLoss", Literal(false)),
        NamedArgumentExpression("maxPartitions", Literal(8)),
        NamedArgumentExpression("maxBytesPerTrigger", Literal(1048576L))
      )
    )
    assert(
      options == Map(
        "streamName" -> "orders",
        "maxFetchRate" -> "1.5",
        "failOnDataLoss" -> "false",
        "maxPartitions" -> "8",
        "maxBytesPerTrigger" -> "1048576"))
  }

  test("a plain SELECT is a batch read of the options, with no call to Kinesis until it runs, no secret in its plan") {
    val df = spark.sql(
      s"SELECT * FROM read_kinesis(streamName => 'orders', $where, awsAccessKey => 'AKIDEXAMPLE', " +
        "awsSecretKey => 'wJalrXUtnFEMI', initialPosition => 'earliest')")
    assert(!df.isStreaming)
    assert(df.schema == spark.read.format("kinesis").option("streamName", "s").option("region", "r").load().schema)
    Seq(df.queryExecution.analyzed, df.queryExecution.optimizedPlan).map(_.toString).foreach { plan =>
      assert(plan.contains("orders"), plan)
      assert(!plan.contains("wJalrXUtnFEMI"), plan)
    }
  }

  test("arguments without a name, given twice, null or not constant are refused, saying which") {
    val positional = refusal("SELECT * FROM read_kinesis('orders')")
    assert(positional.getCondition == "KINESIS_FUNCTION_ARGUMENTS")
    assert(positional.getMessage.contains("argument 1 has no name"), positional.getMessage)
    assert(positional.getMessage.contains("streamName => 'orders'"), positional.getMessage)
    val twice = refusal(s"SELECT * FROM read_kinesis(streamName => 'a', STREAMNAME => 'b', $where)")
    assert(twice.getCondition == "KINESIS_FUNCTION_ARGUMENTS")
    assert(twice.getMessage.contains("is given 2 times"), twice.getMessage)
    val nothing = refusal(s"SELECT * FROM read_kinesis(streamName => 'a', initialPosition => null, $where)")
    assert(nothing.getMessage.contains("initialPosition is null"), nothing.getMessage)
    val varying = refusal(s"SELECT * FROM read_kinesis(streamName => 'a', maxFetchRate => rand(), $where)")
    assert(varying.getMessage.contains("maxFetchRate must be a constant"), varying.getMessage)
    val secret = refusal(
      s"SELECT * FROM read_kinesis(streamName => 'a', awsAccessKey => 'AKID', " +
        s"awsSecretKey => concat('wJalrXUtnFEMI', string(rand())), $where)")
    assert(secret.getMessage.contains("awsSecretKey must be a constant"), secret.getMessage)
    assert(!secret.getMessage.contains("wJalrXUtnFEMI"), secret.getMessage)
  }

  test("a key that is no option of a read is refused with the options a read takes, or the one it is a typo of") {
    val bogus = refusal(s"SELECT * FROM read_kinesis(streamName => 'a', bogus => 1, $where)")
    assert(bogus.getCondition == "KINESIS_FUNCTION_OPTION_UNKNOWN")
    Seq("streamName", "initialPosition", "endPosition", "consumerMode", "awsSecretKey").foreach { option =>
      assert(bogus.getMessage.contains(option), bogus.getMessage)
    }
    Seq("nullData", "path").foreach { other =>
      assert(
        refusal(s"SELECT * FROM read_kinesis(streamName => 'a', $other => 'x', $where)").getCondition ==
          "KINESIS_FUNCTION_OPTION_UNKNOWN")
    }
    val typo = refusal(s"SELECT * FROM read_kinesis(streamName => 'a', intialPosition => 'latest', $where)")
    assert(typo.getCondition == "KINESIS_OPTION_UNKNOWN")
    assert(typo.getMessage.contains("did you mean 'initialPosition'?"), typo.getMessage)
    val databricks = refusal(s"SELECT * FROM read_kinesis(streamName => 'a', serviceCredential => 'c', $where)")
    assert(databricks.getCondition == "KINESIS_OPTION_DATABRICKS_ONLY")
  }

  test("Databricks' consumer timeouts are taken, so that ported queries run, and change nothing") {
    val df = spark.sql(
      s"SELECT * FROM read_kinesis(streamName => 'a', registerConsumerTimeoutInterval => '300s', " +
        s"deregisterConsumerTimeoutInterval => '300s', $where)")
    assert(!df.isStreaming)
  }

  test("a batch read refuses the streaming options at analysis, with the reason, as spark.read does") {
    val perTrigger = refusal(s"SELECT * FROM read_kinesis(streamName => 'a', maxRecordsPerTrigger => 10, $where)")
    assert(perTrigger.getCondition == "KINESIS_OPTION_NOT_IN_BATCH_READ")
    assert(perTrigger.getMessage.contains("a batch read has no triggers"), perTrigger.getMessage)
    val backwards = refusal(s"""SELECT * FROM read_kinesis(streamName => 'a', $where,
         |  initialPosition => '{"at_timestamp": "2026-01-02T00:00:00Z"}',
         |  endPosition => '{"at_timestamp": "2026-01-01T00:00:00Z"}')""".stripMargin)
    assert(backwards.getCondition == "KINESIS_OPTION_INVALID", backwards.getMessage)
  }

  test("DESCRIBE FUNCTION shows the call, both forms, and every argument") {
    val described = spark.sql("DESCRIBE FUNCTION EXTENDED read_kinesis").collect().map(_.getString(0)).mkString("\n")
    Seq("read_kinesis(streamName => STRING", "FROM STREAM", "* endPosition - ", "* awsSecretKey - ").foreach { text =>
      assert(described.contains(text), described)
    }
  }

  test("the setting names the function: one identifier, not one of Spark's; empty leaves it out") {
    def named(value: String) =
      ReadKinesisFunction.name(new SparkConf(loadDefaults = false).set(ReadKinesisFunction.NameSetting, value))
    assert(ReadKinesisFunction.name(new SparkConf(loadDefaults = false)).contains("read_kinesis"))
    assert(named(" kinesis_read ").contains("kinesis_read"))
    assert(named("").isEmpty)
    Seq("a.b" -> "one SQL identifier", "range" -> "one of Spark's own table functions").foreach {
      case (value, problem) =>
        val refused = intercept[IllegalArgumentException](named(value))
        assert(
          refused.getMessage.startsWith(
            "[KINESIS_SETTING_INVALID] Spark setting " +
              s"'spark.kinesis.sql.readFunctionName' has an invalid value '$value'"),
          refused.getMessage
        )
        assert(refused.getMessage.contains(problem), refused.getMessage)
    }
  }
}
