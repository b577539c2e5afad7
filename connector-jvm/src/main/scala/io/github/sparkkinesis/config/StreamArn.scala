// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

/**
 * A stream's ARN, as the option `streamARN` gives it: `arn:<partition>:kinesis:<region>:<account>:stream/<name>`.
 * The connector still knows the stream by its name (the `stream` column, offsets, messages); the ARN says
 * where it is and is what every call names it by, which reading another account's stream through its
 * resource policy requires.
 */
private[sparkkinesis] final case class StreamArn(arn: String, region: String, account: String, name: String) {
  override def toString: String = arn
}

private[sparkkinesis] object StreamArn {

  private val Partition = "aws[a-z-]*"
  private val Region = """[a-z]{2}(?:-[a-z]+)+-\d+"""
  private val Account = """\d{12}"""

  /** A stream ARN, whole. */
  val Pattern: String = s"arn:$Partition:kinesis:$Region:$Account:stream/${KinesisNames.Stream.regex}"

  val Accepted = "arn:aws:kinesis:<region>:<12-digit account>:stream/<name>"

  val Example = "arn:aws:kinesis:us-east-1:123456789012:stream/my-stream"

  private val Parts = s"(arn:$Partition:kinesis:($Region):($Account):stream/(${KinesisNames.Stream.regex}))".r

  /** The ARN of an enhanced fan-out consumer: its stream's ARN, `/consumer/<name>:<creation>`. */
  val ConsumerPattern: String = s"$Pattern/consumer/[a-zA-Z0-9_.-]{1,128}:\\d+"

  private val ConsumerParts = s"$Parts/consumer/([a-zA-Z0-9_.-]{1,128}):(\\d+)".r

  def parse(text: String): Option[StreamArn] = text.trim match {
    case Parts(arn, region, account, name) => Some(StreamArn(arn, region, account, name))
    case _ => None
  }

  /** The stream and the consumer name a consumer ARN names, if it is one. */
  def ofConsumer(consumerArn: String): Option[(StreamArn, String)] = consumerArn.trim match {
    case ConsumerParts(arn, region, account, stream, consumer, _) =>
      Some(StreamArn(arn, region, account, stream) -> consumer)
    case _ => None
  }
}
