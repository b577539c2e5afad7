// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.connect

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.util.ProtobufWire
import org.scalatest.funsuite.AnyFunSuite

/** The Spark Connect plugin answers the consumer manager's calls and nothing else. */
class KinesisConnectPluginSuite extends AnyFunSuite {

  private def any(typeUrl: String, json: String): Array[Byte] =
    new ProtobufWire.Writer().stringField(1, typeUrl).bytesField(2, json.getBytes(UTF_8)).toByteArray

  private val plugin = new KinesisConnectPlugin

  test("a call of the consumer manager becomes its command") {
    val plan = plugin.transform(
      any(ConsumerManagerCall.TypeUrl, """{"version":1,"action":"list","stream":"orders","options":{}}"""),
      null)
    assert(plan.isPresent)
    val command = plan.get.asInstanceOf[ConsumerManagerCommand]
    assert(command.call.action == ConsumerManagerCall.Action.List && command.call.stream.contains("orders"))
  }

  test("another extension is left to the server's other plugins") {
    assert(!plugin.transform(any("type.googleapis.com/delta.connect.DeltaRelation", "x"), null).isPresent)
  }
}
