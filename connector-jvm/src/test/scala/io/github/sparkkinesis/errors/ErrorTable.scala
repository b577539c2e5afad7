// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import scala.jdk.CollectionConverters._

/** The table of error conditions of docs/reference/errors.md, generated from error/kinesis-error-conditions.json. */
object ErrorTable {

  private val Parameter = "<([a-zA-Z]+)>".r

  def markdown: String = {
    val all = ErrorConditions.all().asScala
    val rows = all.toSeq.map { case (name, condition) =>
      val parent = name.takeWhile(_ != '.')
      val (sqlState, text) =
        if (parent == name) (s"`${condition.sqlState}`", condition.template)
        else ("", condition.template.stripPrefix(all(parent).template).trim)
      s"| `$name` | $sqlState | ${cell(text)} |"
    }
    ("| condition | SQLSTATE | message: what happened and what to do |" +: "| --- | --- | --- |" +: rows).mkString("\n")
  }

  /** Parameters in italics (`<stream>` is *stream*), so that Markdown does not take them for HTML. */
  private def cell(template: String): String =
    Parameter.replaceAllIn(template.replace("|", "\\|").replace("\n", " "), m => s"*${m.group(1)}*")
}
