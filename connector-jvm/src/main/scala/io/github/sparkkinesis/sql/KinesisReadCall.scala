// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import io.github.sparkkinesis.config.KinesisOptions
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LeafNode

/**
 * A call of `read_kinesis` with its options, before the analyzer knows whether it is read as a batch or, under
 * `FROM STREAM`, as a stream: [[ResolveKinesisReads]] replaces it in the same pass. Never resolved, so that
 * nothing above it resolves against it; its text shows the streams only, never an option's value.
 */
private[sparkkinesis] final case class KinesisReadCall(options: Map[String, String]) extends LeafNode {

  override lazy val resolved: Boolean = false

  override def output: Seq[Attribute] = Nil

  private def streams: String =
    options
      .collectFirst {
        case (k, v) if k.equalsIgnoreCase(KinesisOptions.StreamName.key) => v
        case (k, v) if k.equalsIgnoreCase(KinesisOptions.StreamArnOption.key) => v
      }
      .getOrElse("")

  override protected def stringArgs: Iterator[Any] = Iterator(streams)

  override def simpleString(maxFields: Int): String = s"KinesisReadCall [$streams]"
}
