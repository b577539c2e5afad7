// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.connect

import io.github.sparkkinesis.api.KinesisConsumerManager
import io.github.sparkkinesis.connect.ConsumerManagerCall.Action
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/**
 * Runs a Spark Connect client's [[ConsumerManagerCall]] on the server's driver, as a command: Spark runs it
 * once, when the client's DataFrame is executed, and it shows in the SQL tab as the call (never its
 * options). Every action answers in the columns of `KinesisConsumerManager.listConsumers`: `list` a row
 * per consumer, `register` the consumer's row once it is ACTIVE, `deregister` and `check` no row.
 *
 * The manager is made for the call and closed after it: a Connect client holds no JVM object between
 * calls. Errors are the manager's own (`KinesisThrowable`s), which the server sends to the client with
 * their condition.
 */
private[sparkkinesis] final case class ConsumerManagerCommand(call: ConsumerManagerCall) extends LeafRunnableCommand {

  override val output: Seq[Attribute] =
    KinesisConsumerManager.ConsumerSchema.map(f => AttributeReference(f.name, f.dataType, f.nullable)())

  override def run(spark: SparkSession): Seq[Row] = {
    val manager = KinesisConsumerManager.create(call.options)
    try {
      def stream = call.stream.get
      def name = call.consumerName.get
      call.action match {
        case Action.Check => Nil
        case Action.List => manager.consumers(stream).map(KinesisConsumerManager.row)
        case Action.Register => Seq(KinesisConsumerManager.row(manager.register(stream, name)))
        case Action.Deregister =>
          manager.deregisterConsumer(stream, name)
          Nil
      }
    } finally manager.close()
  }
}
