// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.connect

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.api.KinesisConsumerManager
import io.github.sparkkinesis.connect.ConsumerManagerCall.Action
import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import io.github.sparkkinesis.util.ProtobufWire
import org.scalatest.funsuite.AnyFunSuite

/** The consumer manager's calls as a Spark Connect client sends them: a protobuf `Any` holding JSON. */
class ConsumerManagerCallSuite extends AnyFunSuite {

  private def any(typeUrl: String, json: String): Array[Byte] =
    new ProtobufWire.Writer().stringField(1, typeUrl).bytesField(2, json.getBytes(UTF_8)).toByteArray

  private def unreadable(json: String): String = {
    val e =
      intercept[KinesisIllegalArgumentException](ConsumerManagerCall.fromAny(any(ConsumerManagerCall.TypeUrl, json)))
    assert(e.getCondition == "KINESIS_CONNECT_CALL_UNREADABLE")
    e.getMessage
  }

  test("each action is read from the Any a client sends, with its options, stream and consumer") {
    val register = ConsumerManagerCall
      .fromAny(
        any(
          ConsumerManagerCall.TypeUrl,
          """{"version": 1, "action": "register", "options": {"region": "eu-west-1", "endpoint": "http://127.0.0.1:4567"},
          | "stream": "orders", "consumerName": "lake"}""".stripMargin
        ))
      .get
    assert(register.action == Action.Register)
    assert(register.options == Map("region" -> "eu-west-1", "endpoint" -> "http://127.0.0.1:4567"))
    assert(register.stream.contains("orders") && register.consumerName.contains("lake"))

    val list = ConsumerManagerCall
      .fromAny(any(ConsumerManagerCall.TypeUrl, """{"version":1,"action":"list","options":{},"stream":"orders"}"""))
      .get
    assert(list.action == Action.List && list.consumerName.isEmpty)
    val check = ConsumerManagerCall.parse("""{"version":1,"action":"check","options":{"region":"us-east-1"}}""")
    assert(check.action == Action.Check && check.stream.isEmpty)
    assert(
      ConsumerManagerCall
        .parse("""{"version":1,"action":"deregister","stream":"s","consumerName":"c"}""")
        .action == Action.Deregister)
  }

  test("another plugin's message is left to that plugin") {
    assert(ConsumerManagerCall.fromAny(any("type.googleapis.com/spark.connect.Relation", "{}")).isEmpty)
    assert(ConsumerManagerCall.fromAny(Array.emptyByteArray).isEmpty)
  }

  test("a call this connector cannot read says what is wrong and that the two versions must match") {
    val version = unreadable("""{"version": 2, "action": "list", "stream": "s"}""")
    assert(version.contains("it is of version 2, and this connector reads version 1"), version)
    assert(version.contains("Use a pyspark-kinesis of the same version as the connector the server runs"), version)
    assert(unreadable("""{"action": "list", "stream": "s"}""").contains("of version (none)"))
    assert(
      unreadable("""{"version": 1, "action": "rename", "stream": "s"}""").contains(
        "it asks for 'rename', which is none of check, list, register, deregister"))
    assert(
      unreadable("""{"version": 1, "action": "register", "stream": "s"}""").contains("'register' names no consumer"))
    assert(unreadable("""{"version": 1, "action": "list"}""").contains("'list' names no stream"))
    assert(
      unreadable("""{"version": 1, "action": "list", "stream": "s", "options": {"maxRecords": 5}}""").contains(
        "the option 'maxRecords' is not a string"))
    assert(unreadable("[1]").contains("it is not a JSON object"))
    assert(unreadable("{not json").contains("it is not JSON"))
    val truncated = any(ConsumerManagerCall.TypeUrl, "{}").dropRight(1)
    val e = intercept[KinesisIllegalArgumentException](ConsumerManagerCall.fromAny(truncated))
    assert(e.getCondition == "KINESIS_CONNECT_CALL_UNREADABLE" && e.getMessage.contains("not a valid protobuf message"))
  }

  test("the call and its command never show the options, which may hold secret keys") {
    val call = ConsumerManagerCall.parse(
      """{"version":1,"action":"list","stream":"orders","options":{"awsSecretKey":"do-not-show","awsAccessKey":"AKIDTESTKEYID"}}""")
    val command = ConsumerManagerCommand(call)
    for (shown <- Seq(call.toString, command.toString, command.simpleString(100), command.treeString))
      assert(
        !shown.contains("do-not-show") && !shown.contains("AKIDTESTKEYID") && shown.contains("stream=orders"),
        shown)
  }

  test("every action answers in the consumer manager's columns") {
    val call = ConsumerManagerCall.parse("""{"version":1,"action":"check","options":{"region":"us-east-1"}}""")
    assert(ConsumerManagerCommand(call).schema == KinesisConsumerManager.ConsumerSchema)
  }
}
