// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import java.util.Locale

import scala.util.control.NonFatal

import io.github.sparkkinesis.config.{KinesisOptions, OptionKeys, OptionSpec}
import io.github.sparkkinesis.errors.KinesisErrors
import org.apache.spark.sql.catalyst.analysis.TableFunctionRegistry
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo, NamedArgumentExpression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.types._
import org.apache.spark.SparkConf

/**
 * `read_kinesis`, the SQL table function: `SELECT * FROM read_kinesis(streamName => 'orders', ...)` reads
 * as `spark.read.format("kinesis")` with those options, and `FROM STREAM read_kinesis(...)` (Spark 4.2 and
 * later) as `spark.readStream.format("kinesis")`. Its arguments are named, as Databricks' function's are, and
 * are the source's options. The builder only reads them into an option map, with no I/O: it cannot tell
 * the two forms apart, so it returns a [[KinesisReadCall]] that [[ResolveKinesisReads]] turns into a batch
 * or a streaming read. Registered by the session extension under the name [[NameSetting]] gives.
 */
private[sparkkinesis] object ReadKinesisFunction {

  val DefaultName = "read_kinesis"

  /** The Spark setting that renames the function, or, empty, registers none. */
  val NameSetting = "spark.kinesis.sql.readFunctionName"

  /** The options a call may name: the streaming source's and the batch read's, as the docs list them. */
  val options: Seq[OptionSpec[_]] = KinesisOptions.all ++ KinesisOptions.batchReadOnly

  private val accepted: Set[String] = options.map(_.lowerKey).toSet

  /**
   * The function's name as the Spark configuration `conf` sets it, checked; None when it is set empty.
   * Spark 4.2 and later register an extension's table functions as built-ins, under one unqualified name.
   */
  def name(conf: SparkConf): Option[String] = {
    val name = conf.get(NameSetting, DefaultName).trim
    def invalid(problem: String) = KinesisErrors.settingInvalid(NameSetting, name, problem, "kinesis_read")
    if (name.isEmpty) None
    else if (!name.matches("[A-Za-z_][A-Za-z0-9_]*"))
      throw invalid("a function name is one SQL identifier: letters, digits and underscores, not a qualified name")
    else if (TableFunctionRegistry.functionSet.exists(_.funcName.equalsIgnoreCase(name)))
      throw invalid(s"$name is one of Spark's own table functions")
    else Some(name)
  }

  /** The function as a session extension registers it: name, description, builder. */
  def description(name: String): (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan) =
    (FunctionIdentifier(name), info(name), arguments => KinesisReadCall(optionsOf(name, arguments)))

  /** What `DESCRIBE FUNCTION [EXTENDED]` shows: the call, what it reads, and every argument it takes. */
  private def info(name: String): ExpressionInfo = {
    val usage =
      signature(name) + """ - Reads Kinesis streams: a batch read (as spark.read.format("kinesis")) from """ +
        """initialPosition up to endPosition; with FROM STREAM (Spark 4.2 and later), a stream (as """ +
        """spark.readStream.format("kinesis"))."""
    val arguments = options
      .map(o => s"      * ${o.key} - ${o.doc}${o.default.fold("")(d => s" Default: $d.")}")
      .mkString("\n    Arguments:\n", "\n", "\n  ")
    val examples =
      s"""
         |    Examples:
         |      > SELECT * FROM $name(streamName => 'orders', initialPosition => 'trim_horizon');
         |      > SELECT * FROM STREAM $name(streamName => 'orders', region => 'eu-west-1');
         |  """.stripMargin
    new ExpressionInfo(classOf[KinesisReadCall].getName, null, name, usage, arguments, examples, "", "", "", "", "")
  }

  private def signature(name: String) = s"$name(streamName => STRING[, option => value, ...])"

  /**
   * The options a call names, with values as strings, as the option parsers read them; refuses positional,
   * repeated, null and non-constant arguments, and keys that are no option of a read.
   */
  def optionsOf(name: String, arguments: Seq[Expression]): Map[String, String] = {
    def refuse(problem: String) = KinesisErrors.functionArguments(name, signature(name), problem)
    val named = arguments.zipWithIndex.map {
      case (NamedArgumentExpression(key, value), _) => key -> value
      case (_, i) =>
        throw refuse(
          s"argument ${i + 1} has no name; write each argument as option => value, such as streamName => 'orders'")
    }
    named.groupBy(_._1.toLowerCase(Locale.ROOT)).values.find(_.size > 1).foreach { twice =>
      throw refuse(s"${twice.head._1} is given ${twice.size} times")
    }
    named.map { case (key, value) =>
      checkKey(name, key)
      key -> text(key, value, refuse)
    }.toMap
  }

  private def checkKey(name: String, key: String): Unit = {
    val lower = key.toLowerCase(Locale.ROOT)
    if (!accepted(lower) && !OptionKeys.databricksUnused(lower)) {
      OptionKeys.databricksOnlyOption(key).foreach(what => throw KinesisErrors.optionDatabricksOnly(key, what))
      OptionKeys.meant(key).filter(o => accepted(o.lowerKey)).foreach { o =>
        throw KinesisErrors.unknownOption(key, o.key)
      }
      throw KinesisErrors.functionOptionUnknown(name, key, options.map(_.key))
    }
  }

  /** A constant's value as the option's text; never shows a secret option's expression. */
  private def text(key: String, value: Expression, refuse: String => Throwable): String = {
    val shown = if (KinesisOptions.find(key).exists(_.secret)) "an expression" else value.sql
    if (value.dataType == NullType) throw refuse(s"$key is null")
    val constant = value.dataType match {
      case _: StringType | BooleanType | ByteType | ShortType | IntegerType | LongType | _: DecimalType | DoubleType |
          FloatType =>
        value.foldable
      case _ => false
    }
    if (!constant)
      throw refuse(s"$key must be a constant string, number or boolean, and is $shown of type ${value.dataType.sql}")
    val evaluated =
      try value.eval()
      catch { case NonFatal(e) => throw refuse(s"$key cannot be evaluated: ${e.getClass.getSimpleName}") }
    Option(evaluated).map(_.toString).getOrElse(throw refuse(s"$key is null"))
  }
}
