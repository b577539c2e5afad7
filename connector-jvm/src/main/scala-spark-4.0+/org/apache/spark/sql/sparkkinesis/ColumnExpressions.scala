// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.sparkkinesis

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.classic.ExpressionUtils
import org.apache.spark.sql.Column

/**
 * Columns made of the connector's Catalyst expressions (its functions), and back. Spark 4 keeps this in
 * its classic session's `private[sql]` utilities, which is why this object lives in a package of Spark's; it is
 * the connector's own, not an API.
 */
object ColumnExpressions {

  def column(expression: Expression): Column = ExpressionUtils.column(expression)

  def expression(column: Column): Expression = ExpressionUtils.expression(column)
}
