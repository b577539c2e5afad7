// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

/**
 * The well-known types of `google/protobuf/` that a registry's `.proto` file may import and use: the
 * registry stores one file per schema, and these are the imports its own serializers resolve without it.
 * Timestamp and Duration (which [[ProtoSchemas]] maps to Spark's timestamp and day-time interval), the
 * wrappers (`Int32Value`, `StringValue`, ...: a struct of their `value`, as Spark's `from_protobuf` maps
 * them), `Any` (a struct of `type_url` and `value`) and `Empty`. Other imports are refused by the parser.
 *
 * Stateless and thread-safe.
 */
private[sparkkinesis] object WellKnownTypes {

  private def proto3(name: String, fields: (String, Int, String)*): ProtoMessage =
    ProtoMessage(
      s"google.protobuf.$name",
      name,
      fields.map { case (f, n, t) => ProtoField(f, n, "", ProtoScalar(t), None, None, implicitPresence = true) },
      Nil,
      Nil)

  private val wrappers = Seq(
    "DoubleValue" -> "double",
    "FloatValue" -> "float",
    "Int64Value" -> "int64",
    "UInt64Value" -> "uint64",
    "Int32Value" -> "int32",
    "UInt32Value" -> "uint32",
    "BoolValue" -> "bool",
    "StringValue" -> "string",
    "BytesValue" -> "bytes"
  )

  /** The import paths this connector knows, and the messages each defines. */
  val imports: Map[String, Seq[ProtoMessage]] = Map(
    "google/protobuf/timestamp.proto" -> Seq(proto3("Timestamp", ("seconds", 1, "int64"), ("nanos", 2, "int32"))),
    "google/protobuf/duration.proto" -> Seq(proto3("Duration", ("seconds", 1, "int64"), ("nanos", 2, "int32"))),
    "google/protobuf/wrappers.proto" -> wrappers.map { case (n, t) => proto3(n, ("value", 1, t)) },
    "google/protobuf/any.proto" -> Seq(proto3("Any", ("type_url", 1, "string"), ("value", 2, "bytes"))),
    "google/protobuf/empty.proto" -> Seq(proto3("Empty"))
  )

  val messages: Seq[ProtoMessage] = imports.values.flatten.toSeq
}
