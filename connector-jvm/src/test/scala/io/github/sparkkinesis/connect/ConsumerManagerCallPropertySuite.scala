// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.connect

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import io.github.sparkkinesis.testing.SeededProperties
import io.github.sparkkinesis.util.ProtobufWire
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * The consumer manager's call arrives from a Spark Connect client as bytes: any bytes are taken to another
 * plugin's message (None), a call, or `KINESIS_CONNECT_CALL_UNREADABLE`, never to another error; every call
 * a client writes reads back as it was written.
 */
class ConsumerManagerCallPropertySuite extends AnyFunSuite with SeededProperties {

  private def any(typeUrl: String, value: Array[Byte]): Array[Byte] =
    new ProtobufWire.Writer().stringField(1, typeUrl).bytesField(2, value).toByteArray

  private val text: Gen[String] = Gen.oneOf(Gen.alphaNumStr, Gen.asciiPrintableStr, Gen.const("ключ \"q\" \\ \u0000"))

  private val calls = for {
    action <- Gen.oneOf(ConsumerManagerCall.Action.all)
    options <- Gen.mapOf(Gen.zip(text, text))
    stream <- if (action.needsStream) text.map(Some(_)) else Gen.option(text)
    name <- if (action.needsName) text.map(Some(_)) else Gen.option(text)
  } yield (action, options, stream, name)

  private def json(s: String): String = {
    val out = new java.io.StringWriter()
    val g = new com.fasterxml.jackson.core.JsonFactory().createGenerator(out)
    g.writeString(s)
    g.close()
    out.toString
  }

  test("every call a client writes reads back as written") {
    forAll(calls) { case (action, options, stream, name) =>
      val fields = Seq(
        Some(s""""version":1"""),
        Some(s""""action":${json(action.name)}"""),
        Some(options.map { case (k, v) => s"${json(k)}:${json(v)}" }.mkString(""""options":{""", ",", "}")),
        stream.map(s => s""""stream":${json(s)}"""),
        name.map(n => s""""consumerName":${json(n)}""")
      ).flatten
      val call =
        ConsumerManagerCall.fromAny(any(ConsumerManagerCall.TypeUrl, fields.mkString("{", ",", "}").getBytes(UTF_8)))
      assert(call.map(c => (c.action, c.options, c.stream, c.consumerName)) == Some((action, options, stream, name)))
    }
  }

  test("any bytes are another plugin's message, a call, or refused as unreadable") {
    val bytes = Gen.containerOf[Array, Byte](Gen.choose(Byte.MinValue, Byte.MaxValue))
    val documents = Gen.oneOf(
      text,
      Gen.oneOf("{}", "[]", "null", """{"version":1}""", """{"version":"1","action":"list"}""", """{"version":1.0}"""),
      Gen.zip(Gen.oneOf("1", "2", "1.5", "null", "\"x\""), Gen.oneOf("\"list\"", "\"x\"", "1", "null"), text).map {
        case (version, action, stream) =>
          s"""{"version":$version,"action":$action,"options":{"a":1},"stream":${json(stream)}}"""
      }
    )
    val messages = Gen.oneOf(
      bytes,
      bytes.map(any(ConsumerManagerCall.TypeUrl, _)),
      documents.map(d => any(ConsumerManagerCall.TypeUrl, d.getBytes(UTF_8))),
      Gen.zip(documents, Gen.choose(0, 200)).map { case (d, cut) =>
        any(ConsumerManagerCall.TypeUrl, d.getBytes(UTF_8)).take(cut)
      }
    )
    forAll(messages) { message =>
      try ConsumerManagerCall.fromAny(message)
      catch { case e: KinesisIllegalArgumentException => assert(e.getCondition == "KINESIS_CONNECT_CALL_UNREADABLE") }
    }
  }
}
