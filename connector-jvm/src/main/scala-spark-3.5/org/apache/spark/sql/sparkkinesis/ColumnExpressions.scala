// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.sparkkinesis

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.Column

/**
 * Columns made of the connector's Catalyst expressions (its functions), and back: Spark 3.5's Column wraps one.
 * The connector's own, not an API; in a package of Spark's as the other lines' must be.
 */
object ColumnExpressions {

  def column(expression: Expression): Column = new Column(expression)

  def expression(column: Column): Expression = column.expr
}
