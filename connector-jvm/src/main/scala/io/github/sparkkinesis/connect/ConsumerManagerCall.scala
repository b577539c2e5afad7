// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.connect

import java.nio.charset.StandardCharsets.UTF_8

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.util.ProtobufWire

/**
 * A call of the consumer manager that a Spark Connect client sends (pyspark-kinesis'
 * `KinesisConsumerManager` on a Connect session): the relation extension the connector's
 * [[KinesisConnectPlugin]] answers.
 *
 * On the wire it is a protobuf `Any` whose type URL is [[TypeUrl]] and whose value is a JSON object, the
 * one definition both sides follow (pyspark_kinesis/_connect.py writes it):
 * {{{
 *   {"version": 1, "action": "list" | "register" | "deregister" | "check",
 *    "options": {"region": "...", ...}, "stream": "<name or ARN>", "consumerName": "<name>"}
 * }}}
 * `options` are the manager's options, as `KinesisConsumerManager.create` takes them; `stream` is absent
 * for `check` (which only validates the options), `consumerName` present for `register` and `deregister`.
 * JSON rather than a generated protobuf message: the server relocates its protobuf runtime and each Spark
 * line another way, and a client's protobuf version is its own, so neither side needs generated code.
 *
 * Holds secrets (the options may carry keys); its `toString` shows the action, the stream and the name only.
 */
private[sparkkinesis] final class ConsumerManagerCall(
    val action: ConsumerManagerCall.Action,
    val options: Map[String, String],
    val stream: Option[String],
    val consumerName: Option[String]) {

  override def toString: String =
    (Seq(action.name) ++ stream.map(s => s"stream=$s") ++ consumerName.map(n => s"consumerName=$n"))
      .mkString("KinesisConsumerManager(", ", ", ")")
}

private[sparkkinesis] object ConsumerManagerCall {

  /** The type URL of the call in a Connect relation's `extension`. */
  val TypeUrl = "type.googleapis.com/io.github.sparkkinesis.connect.ConsumerManagerCall"

  /** The version of the JSON this connector reads; a client sends the version it writes. */
  val Version = 1

  sealed abstract class Action(val name: String, val needsStream: Boolean, val needsName: Boolean)
  object Action {
    case object Check extends Action("check", needsStream = false, needsName = false)
    case object List extends Action("list", needsStream = true, needsName = false)
    case object Register extends Action("register", needsStream = true, needsName = true)
    case object Deregister extends Action("deregister", needsStream = true, needsName = true)
    val all: Seq[Action] = Seq(Check, List, Register, Deregister)
  }

  private val mapper = new ObjectMapper()

  /**
   * The call in a serialized protobuf `Any`, as a Connect server hands it to a relation plugin; `None` if
   * the `Any` holds another message (another plugin's).
   *
   * @throws io.github.sparkkinesis.errors.KinesisIllegalArgumentException (KINESIS_CONNECT_CALL_UNREADABLE)
   *   if it is a call of the connector that this connector cannot read
   */
  def fromAny(bytes: Array[Byte]): Option[ConsumerManagerCall] = {
    val (typeUrl, value) =
      try anyFields(bytes)
      catch { case e: ProtobufWire.Malformed => throw KinesisErrors.connectCallUnreadable(e.getMessage) }
    if (typeUrl != TypeUrl) None else Some(parse(new String(value, UTF_8)))
  }

  /** The type URL (field 1) and value (field 2) of a serialized `google.protobuf.Any`. */
  private def anyFields(bytes: Array[Byte]): (String, Array[Byte]) = {
    val reader = new ProtobufWire.Reader(bytes, 0, bytes.length)
    var typeUrl = ""
    var value = Array.emptyByteArray
    while (reader.hasMore) {
      reader.tag() match {
        case (1, ProtobufWire.LengthDelimited) => typeUrl = reader.stringField()
        case (2, ProtobufWire.LengthDelimited) => value = reader.bytesField()
        case (_, wireType) => reader.skip(wireType)
      }
    }
    (typeUrl, value)
  }

  /** The call in its JSON form. */
  def parse(json: String): ConsumerManagerCall = {
    def unreadable(problem: String) = KinesisErrors.connectCallUnreadable(problem)
    val root: JsonNode =
      try mapper.readTree(json)
      catch { case NonFatal(e) => throw unreadable(s"it is not JSON (${e.getMessage})") }
    if (root == null || !root.isObject) throw unreadable("it is not a JSON object")
    val version = root.path("version")
    if (!version.isInt || version.asInt() != Version)
      throw unreadable(
        s"it is of version ${if (version.isMissingNode) "(none)" else version.toString}, and this connector " +
          s"reads version $Version")
    def text(field: String): Option[String] = Option(root.get(field)).filterNot(_.isNull).map { node =>
      if (!node.isTextual) throw unreadable(s"'$field' is not a string")
      node.asText()
    }
    val actionName = text("action").getOrElse(throw unreadable("it names no action"))
    val action = Action.all
      .find(_.name == actionName)
      .getOrElse(
        throw unreadable(s"it asks for '$actionName', which is none of ${Action.all.map(_.name).mkString(", ")}"))
    val options = Option(root.get("options")).filterNot(_.isNull) match {
      case None => Map.empty[String, String]
      case Some(node) if node.isObject =>
        node
          .properties()
          .asScala
          .map { entry =>
            if (!entry.getValue.isTextual) throw unreadable(s"the option '${entry.getKey}' is not a string")
            entry.getKey -> entry.getValue.asText()
          }
          .toMap
      case Some(_) => throw unreadable("'options' is not a JSON object")
    }
    val stream = text("stream")
    val name = text("consumerName")
    if (action.needsStream && stream.isEmpty) throw unreadable(s"'$actionName' names no stream")
    if (action.needsName && name.isEmpty) throw unreadable(s"'$actionName' names no consumer")
    new ConsumerManagerCall(action, options, stream, name)
  }
}
