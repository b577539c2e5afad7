// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

/**
 * What an option accepts, declared once: the rule parses the option's raw string (Left: what is wrong with
 * it) and describes itself, as the JSON the Python package's builders check their values by
 * (`pyspark_kinesis/_options.json`, generated from these declarations), so the two cannot disagree.
 *
 * @param kind       the rule's name: text, flag, choice, position, whole, decimal, duration, size, pattern,
 *                   names or endpoint
 * @param attributes what the kind needs besides: bounds, accepted values, a pattern and how to say it
 */
private[sparkkinesis] final class OptionRule[T](
    val kind: String,
    val attributes: Seq[(String, Any)],
    parse: String => Either[String, T])
    extends (String => Either[String, T])
    with Serializable {

  override def apply(raw: String): Either[String, T] = parse(raw)

  /** The same rule, its value turned into another type. */
  def map[U](f: T => U): OptionRule[U] = new OptionRule(kind, attributes, raw => parse(raw).map(f))

  /** The rule as plain Java values (maps, lists, strings, numbers), for JSON. */
  def describe: java.util.Map[String, Any] = {
    val out = new java.util.LinkedHashMap[String, Any]()
    out.put("kind", kind)
    attributes.foreach {
      case (name, values: Seq[_]) => out.put(name, values.asJava)
      case (name, values: Map[_, _]) => out.put(name, values.asJava)
      case (name, value) => out.put(name, value)
    }
    out
  }
}

private[sparkkinesis] object OptionRule {
  private val json = new ObjectMapper()

  /** Plain Java values as JSON text, with two-space indents and keys in the order given. */
  def toJson(value: Any): String = json.writerWithDefaultPrettyPrinter().writeValueAsString(value)
}
