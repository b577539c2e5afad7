// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.errors.{ErrorCondition, KinesisIllegalArgumentException}
import org.scalatest.funsuite.AnyFunSuite

/** `streamARN`: streams named by ARN, for reads, batch reads and the sink. */
class StreamOptionsSuite extends AnyFunSuite {

  private val orders = "arn:aws:kinesis:eu-west-1:111122223333:stream/orders"
  private val clicks = "arn:aws:kinesis:eu-west-1:444455556666:stream/clicks"

  private def source(options: (String, String)*): KinesisSourceConfig =
    KinesisSourceConfig(options.toMap, () => Some("us-east-1"))

  private def failure(options: (String, String)*): KinesisIllegalArgumentException =
    intercept[KinesisIllegalArgumentException](source(options: _*))

  test("streams named by ARN are known by their names, in their region, and every call names them by ARN") {
    val config = source("streamARN" -> s"$orders, $clicks")
    assert(config.streams == Seq("orders", "clicks"))
    assert(config.description == "KinesisV2[orders,clicks]")
    assert(config.aws.region == "eu-west-1", "the ARNs' region, not the default chain's")
    assert(config.aws.streamArns == Map("orders" -> orders, "clicks" -> clicks))
    assert(source("streamName" -> "orders").aws.streamArns.isEmpty)
  }

  test("the region may be given too, if it is the ARNs'; an endpoint of another region is refused") {
    assert(source("streamARN" -> orders, "region" -> "eu-west-1").aws.region == "eu-west-1")
    val region = failure("streamARN" -> orders, "region" -> "us-east-1").getMessage
    assert(region.contains("Option 'region'") && region.contains("in region eu-west-1"))
    val endpoint = failure("streamARN" -> orders, "endpoint" -> "https://kinesis.us-east-1.amazonaws.com")
    assert(endpoint.getMessage.contains("Option 'endpoint'") && endpoint.getMessage.contains("region us-east-1"))
    val local = source("streamARN" -> orders, "endpoint" -> "http://127.0.0.1:4567")
    assert(local.aws.region == "eu-west-1" && local.aws.endpoint.contains("http://127.0.0.1:4567"))
  }

  test("streamName and streamARN together are refused, naming both") {
    val both = failure("streamName" -> "orders", "streamARN" -> orders)
    assert(ErrorCondition.unapply(both).contains(ErrorCondition.OptionsConflict))
    assert(both.getMessage.contains("Options 'streamName' and 'streamARN' cannot be set together"))
  }

  test("ARNs that cannot be read together are refused with the reason") {
    val notArn = failure("streamARN" -> "orders").getMessage
    assert(notArn.contains("Option 'streamARN'") && notArn.contains("'orders' is not a stream ARN"))
    val otherService = failure("streamARN" -> "arn:aws:sqs:eu-west-1:111122223333:orders").getMessage
    assert(otherService.contains("is not a stream ARN"))
    val sameName = failure("streamARN" -> s"$orders,arn:aws:kinesis:eu-west-1:444455556666:stream/orders")
    assert(sameName.getMessage.contains("two streams are named 'orders'"))
    val regions = failure("streamARN" -> s"$orders,arn:aws:kinesis:us-east-1:111122223333:stream/clicks")
    assert(regions.getMessage.contains("regions eu-west-1 and us-east-1"))
    assert(failure("streamARN" -> s"$orders,$orders").getMessage.contains("named twice"))
  }

  test("ARNs of every AWS partition are accepted") {
    val china = "arn:aws-cn:kinesis:cn-north-1:111122223333:stream/orders"
    assert(source("streamARN" -> china).aws.region == "cn-north-1")
    val gov = "arn:aws-us-gov:kinesis:us-gov-west-1:111122223333:stream/orders"
    assert(source("streamARN" -> gov).aws.streamArns == Map("orders" -> gov))
  }

  test("batch reads and the sink take streamARN too") {
    val read = KinesisBatchReadConfig(Map("streamARN" -> orders), () => None)
    assert(read.streams == Seq("orders") && read.aws.streamArns == Map("orders" -> orders))
    val sink = KinesisSinkConfig(Map("streamARN" -> orders), () => None)
    assert(sink.stream.contains("orders") && sink.aws.streamArns == Map("orders" -> orders))
    val two =
      intercept[KinesisIllegalArgumentException](KinesisSinkConfig(Map("streamARN" -> s"$orders,$clicks"), () => None))
    assert(two.getMessage.contains("Option 'streamARN'") && two.getMessage.contains("writes to one stream"))
  }

  test("a consumer ARN tells its stream and name") {
    val consumer = s"$orders/consumer/reader:1593105825"
    assert(
      StreamArn.ofConsumer(consumer).contains(StreamArn(orders, "eu-west-1", "111122223333", "orders") -> "reader"))
    assert(StreamArn.ofConsumer(orders).isEmpty)
  }
}
