// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.Locale

import io.github.sparkkinesis.aws.AwsCredentialsConfig
import io.github.sparkkinesis.client.KinesisClientFactory
import io.github.sparkkinesis.config.{AwsOptions, KinesisOptions, OptionRule, OptionSpec, ParsedOptions}
import io.github.sparkkinesis.config.OptionParsers._
import io.github.sparkkinesis.errors.KinesisErrors

/** What `from_glue_registry` does with a record it cannot decode. */
private[sparkkinesis] sealed trait DecodeMode extends Serializable

private[sparkkinesis] object DecodeMode {

  /** The query fails, naming the record and why. */
  case object FailFast extends DecodeMode

  /** The record decodes to null, counted, and the first of each kind of failure is logged. */
  case object Permissive extends DecodeMode
}

/**
 * The options of the registry functions, parsed once, on the driver, when the function is analysed.
 * Serializable (it travels to executors); its `toString` shows no secret.
 *
 * @param version        the schema version named (None: the latest)
 * @param mode           decoding: what a record that cannot be decoded does
 * @param registerSchema encoding: whether a struct no version fits registers its own schema as one
 * @param compress       encoding: whether payloads are compressed (zlib)
 * @param messageName    Protobuf: the message of the `.proto` file records are read or written as, by full
 *                       or simple name (None: the file's first message)
 */
private[sparkkinesis] final case class GlueFunctionOptions(
    registry: GlueRegistryConfig,
    schema: SchemaRef,
    version: Option[Long],
    mode: DecodeMode,
    dataFormat: Option[String],
    registerSchema: Boolean,
    compress: Boolean,
    messageName: Option[String] = None)

/**
 * The options the registry functions take, declared once: where the registry is and as whom to call it (the
 * connector's credential and role options), which schema version, and what to do with a record that cannot
 * be decoded. Keys are matched whatever their case, as the source's are. Stateless.
 */
private[sparkkinesis] object GlueFunctionOptions {

  val DefaultRegistry = "default-registry"

  import OptionSpec.plain

  val Region: OptionSpec[String] =
    plain(
      "region",
      null,
      "AWS region of the registry; default: from the endpoint, else the SDK's region chain.",
      "us-east-1")(string)

  val Endpoint: OptionSpec[String] =
    plain(
      "endpoint",
      null,
      "Glue endpoint URL (a VPC endpoint, or a test server); default: the region's public endpoint.",
      "https://glue.us-east-1.amazonaws.com"
    )(endpoint)

  val SchemaVersion: OptionSpec[Option[Long]] =
    plain(
      "schemaVersion",
      "latest",
      "latest, or a version number. from_glue_registry: the version every record is resolved to (each is " +
        "read with the version it was written with). to_glue_registry: the version records are written " +
        "with. latest is looked up once, when the query is analysed.",
      "3"
    )(
      new OptionRule(
        "schemaVersion",
        Seq("values" -> Seq("latest")),
        raw =>
          if (raw.trim.equalsIgnoreCase("latest")) Right(None)
          else long(1, Long.MaxValue)(raw).map(Some(_)).left.map(_ => "expected latest or a version number from 1")
      ))

  val Mode: OptionSpec[DecodeMode] =
    plain(
      "mode",
      "FAILFAST",
      "What a record that cannot be decoded (not framed by the registry, of another schema, or not valid " +
        "for its version) does: FAILFAST fails the query naming the record, PERMISSIVE gives a null struct, " +
        "counted and logged.",
      "PERMISSIVE"
    )(choice("failfast" -> DecodeMode.FailFast, "permissive" -> DecodeMode.Permissive))

  val DataFormat: OptionSpec[String] =
    plain(
      "dataFormat",
      null,
      "The format the schema must have, AVRO, JSON or PROTOBUF; checked against the registry's when the " +
        "query is analysed. Default: the registry's, whichever it is.",
      "AVRO"
    )(choice("avro" -> "AVRO", "json" -> "JSON", "protobuf" -> "PROTOBUF"))

  val MessageName: OptionSpec[String] =
    plain(
      "messageName",
      null,
      "PROTOBUF schemas: the message of the schema's .proto file that records are read or written as, by its " +
        "full name or, when no other message has it, its name alone. Default: the file's first message. With " +
        "registerSchema, the struct's own .proto declares this message (package, then name), and a schema " +
        "created without dataFormat is PROTOBUF.",
      "shop.Order"
    )(
      matching(
        "[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*",
        "a Protobuf message name, such as Order or shop.Order",
        "expected a message name: letters, digits and _, not starting with a digit, in parts joined by dots"
      ))

  val RegisterSchema: OptionSpec[Boolean] =
    plain(
      "registerSchema",
      "false",
      "to_glue_registry: when the struct does not fit the schema's latest version, register the struct's " +
        "own schema as a new version (creating the schema if there is none), for the registry to check " +
        "against its compatibility rules. Needs glue:RegisterSchemaVersion (glue:CreateSchema to create).",
      "true"
    )(boolean)

  val Compression: OptionSpec[Boolean] =
    plain(
      "compression",
      "none",
      "to_glue_registry: none, or zlib to compress each record's payload (the header stays as it is), " +
        "as the registry's serializers do; every decoder of the registry inflates it.",
      "zlib"
    )(choice("none" -> false, "zlib" -> true))

  /** Where the registry is and as whom to call it (the source's credential options). */
  private val where: Seq[OptionSpec[_]] = Seq(Region, Endpoint) ++ KinesisOptions.credentials

  /** What `from_glue_registry` takes. */
  val decoding: Seq[OptionSpec[_]] = where ++ Seq(SchemaVersion, Mode, DataFormat, MessageName)

  /** What `to_glue_registry` takes. */
  val encoding: Seq[OptionSpec[_]] =
    where ++ Seq(SchemaVersion, DataFormat, MessageName, RegisterSchema, Compression)

  /** Every option of the functions, in the order the reference lists them. */
  val all: Seq[OptionSpec[_]] = (decoding ++ encoding).distinct

  /**
   * The options of a call of `function` (which takes `specs`), read on the driver. Refuses a key it does
   * not take, naming those it does, and a value it cannot read, naming the option.
   */
  def parse(
      function: String,
      specs: Seq[OptionSpec[_]],
      schema: SchemaRef,
      raw: Map[String, String],
      resolveDefaultRegion: () => Option[String] = () => KinesisClientFactory.defaultRegion()): GlueFunctionOptions = {
    val keys = specs.map(_.lowerKey).toSet
    raw.keys.toSeq.sorted.find(k => !keys.contains(k.toLowerCase(Locale.ROOT))).foreach { k =>
      throw KinesisErrors.functionOptionUnknown(function, k, specs.map(_.key))
    }
    val options = new ParsedOptions(raw)
    specs.foreach(options.get(_))
    val endpoint = options.get(Endpoint)
    val region = options
      .get(Region)
      .orElse(endpoint.flatMap(AwsOptions.regionOfServiceEndpoint(_, "glue")))
      .orElse(resolveDefaultRegion())
      .getOrElse(throw KinesisErrors.missingOption(Region.key, Region.example))
    val credentials: AwsCredentialsConfig = AwsOptions.credentialsOf(options, region)
    val version = options.required(SchemaVersion)
    val register = options.required(RegisterSchema)
    if (register && version.isDefined)
      throw KinesisErrors.optionsConflict(
        RegisterSchema.key,
        SchemaVersion.key,
        "a struct is written with the version schemaVersion names, or with a version registered for it. " +
          "Leave schemaVersion out (latest) to register versions."
      )
    val dataFormat = options.get(DataFormat)
    val messageName = options.get(MessageName)
    dataFormat.filter(f => messageName.isDefined && f != "PROTOBUF").foreach { format =>
      throw KinesisErrors.optionsConflict(
        MessageName.key,
        DataFormat.key,
        s"messageName names a message of a PROTOBUF schema's .proto file, and dataFormat says $format, whose " +
          "schemas describe one record type. Remove messageName, or set dataFormat to PROTOBUF."
      )
    }
    GlueFunctionOptions(
      GlueRegistryConfig(region, endpoint, credentials),
      schema,
      version,
      options.required(Mode),
      dataFormat,
      register,
      options.required(Compression),
      messageName
    )
  }

  /** The option table of docs/reference/functions.md: which function takes each option, and what it does. */
  def markdownTable: String = {
    val rows = all.map { s =>
      val default = s.default.map(d => s"`$d`").getOrElse("")
      val takes = Seq("from" -> decoding, "to" -> encoding).collect { case (f, specs) if specs.contains(s) => f }
      s"| `${s.key}` | ${takes.mkString(", ")} | $default | ${s.doc.replace("|", "\\|")} |"
    }
    ("| option | functions | default | meaning |" +: "| --- | --- | --- | --- |" +: rows).mkString("\n")
  }

}
