// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.errors.{ErrorCondition, KinesisIllegalArgumentException}
import org.scalatest.funsuite.AnyFunSuite

/** `registeredConsumerId` and `registeredConsumerIdType`: consumers registered beforehand. */
class RegisteredConsumersSuite extends AnyFunSuite {

  private val efo = Map("streamName" -> "orders,clicks", "region" -> "eu-west-1", "consumerMode" -> "efo")
  private val ordersArn = "arn:aws:kinesis:eu-west-1:111122223333:stream/orders"
  private val clicksArn = "arn:aws:kinesis:eu-west-1:111122223333:stream/clicks"

  private def consumers(options: Map[String, String]): Map[String, QueryConsumer] =
    KinesisSourceConfig(options, () => None).consumer.consumersFor(Seq("orders", "clicks"), "query-id")

  private def failure(options: Map[String, String]): KinesisIllegalArgumentException =
    intercept[KinesisIllegalArgumentException](KinesisSourceConfig(options, () => None))

  test("by name: one name for every stream, or one per stream in their order, without the prefix") {
    assert(
      consumers(efo + ("registeredConsumerId" -> "admin")) ==
        Map("orders" -> QueryConsumer.RegisteredName("admin"), "clicks" -> QueryConsumer.RegisteredName("admin")))
    assert(
      consumers(efo + ("registeredConsumerId" -> "o, c")) ==
        Map("orders" -> QueryConsumer.RegisteredName("o"), "clicks" -> QueryConsumer.RegisteredName("c")))
    assert(consumers(efo)("orders") == QueryConsumer.Own("spark-kinesis_query-id"), "without it: the query's own")
  }

  test("by ARN: one per stream, each of its stream") {
    val ids = s"$ordersArn/consumer/admin:1,$clicksArn/consumer/admin:2"
    val byArn = efo + ("registeredConsumerId" -> ids, "registeredConsumerIdType" -> "ARN")
    assert(
      consumers(byArn) == Map(
        "orders" -> QueryConsumer.RegisteredArn(s"$ordersArn/consumer/admin:1"),
        "clicks" -> QueryConsumer.RegisteredArn(s"$clicksArn/consumer/admin:2")))
    val swapped = failure(byArn + ("registeredConsumerId" -> s"$clicksArn/consumer/a:2,$ordersArn/consumer/a:1"))
    assert(swapped.getMessage.contains("is of stream 'clicks', not of 'orders'"))
    val one = failure(byArn + ("registeredConsumerId" -> s"$ordersArn/consumer/admin:1"))
    assert(one.getMessage.contains("it names 1 consumers for 2 streams; give one consumer ARN per stream"))
    val otherAccount = "arn:aws:kinesis:eu-west-1:999999999999:stream/orders/consumer/admin:1"
    val byStreamArn = Map(
      "streamARN" -> ordersArn,
      "consumerMode" -> "efo",
      "registeredConsumerIdType" -> "arn",
      "registeredConsumerId" -> otherAccount)
    assert(failure(byStreamArn).getMessage.contains(s"and streamARN names $ordersArn"))
  }

  test("the id type must match the ids given") {
    val arnAsName = failure(efo + ("registeredConsumerId" -> s"$ordersArn/consumer/a:1,$clicksArn/consumer/a:2"))
    assert(arnAsName.getMessage.contains("set registeredConsumerIdType to arn"))
    val nameAsArn = failure(efo + ("registeredConsumerId" -> "a,b", "registeredConsumerIdType" -> "arn"))
    assert(nameAsArn.getMessage.contains("'a' is not a consumer ARN"))
    assert(
      failure(efo + ("registeredConsumerId" -> "a", "registeredConsumerIdType" -> "id")).getMessage
        .contains("expected name or arn"))
  }

  test("options about the query's own consumer are refused with it, naming both") {
    val given = efo + ("registeredConsumerId" -> "admin")
    Seq("consumerName" -> "mine", "consumerNamePrefix" -> "x_", "requireConsumerDeregistration" -> "true").foreach {
      case (key, value) =>
        val refused = failure(given + (key -> value))
        assert(ErrorCondition.unapply(refused).contains(ErrorCondition.OptionsConflict), key)
        assert(refused.getMessage.contains(s"Options 'registeredConsumerId' and '$key' cannot be set together"))
    }
    assert(consumers(given + ("requireConsumerDeregistration" -> "false"))("orders").id == "admin")
  }

  test("a registered consumer needs consumerMode efo; batch reads refuse it") {
    val polling = failure(efo - "consumerMode" + ("registeredConsumerId" -> "admin"))
    assert(polling.getMessage.contains("Option 'consumerMode' is required when 'registeredConsumerId' is set"))
    val batch = intercept[KinesisIllegalArgumentException](
      KinesisBatchReadConfig(
        Map("streamName" -> "orders", "region" -> "eu-west-1", "registeredConsumerId" -> "a"),
        () => None))
    assert(ErrorCondition.unapply(batch).contains(ErrorCondition.OptionNotInBatchRead))
  }
}
