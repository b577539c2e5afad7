// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import scala.util.control.NonFatal

import io.github.sparkkinesis.errors.{GlueRegistryErrors, KinesisErrors}
import io.github.sparkkinesis.glue.avro.AvroConversionException
import io.github.sparkkinesis.glue.json.JsonSchemaException
import io.github.sparkkinesis.glue.protobuf.ProtoSchemaException
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.util.MapData
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.types.{MapType, StringType}
import org.apache.spark.sql.SparkSession

/**
 * The registry functions' expressions, made on the driver when a query is analysed: the options read, the
 * reader schema version asked of the registry (the latest one, or the one named), its Spark type derived.
 * From the Scala and Python API (the connector's `functions`) and from SQL (the session extension,
 * `KinesisSparkExtensions`, which registers [[sqlFunctions]]). Stateless.
 */
private[sparkkinesis] object GlueFunctions {

  val FromName = "from_glue_registry"
  val ToName = "to_glue_registry"
  val HeaderName = "glue_registry_header"

  private val FromSignature =
    s"$FromName(data BINARY, schemaName STRING[, registryName STRING[, options MAP<STRING, STRING>]]), " +
      "the names and options given as literals"

  val ToSignature: String =
    s"$ToName(struct STRUCT, schemaName STRING[, registryName STRING[, options MAP<STRING, STRING>]]), " +
      "the names and options given as literals"

  /** `from_glue_registry` of `data`, decoding schema `schemaName` of registry `registryName`. */
  def fromGlueRegistry(
      data: Expression,
      schemaName: String,
      registryName: String,
      options: Map[String, String]): FromGlueRegistry = {
    val schema = SchemaRef(registryName, schemaName)
    val parsed = GlueFunctionOptions.parse(FromName, GlueFunctionOptions.decoding, schema, options)
    val reader = SchemaVersions.client(parsed.registry).schemaVersion(schema, parsed.version)
    checkUsable(FromName, parsed, reader)
    val format =
      try
        PayloadFormat
          .of(reader, parsed.messageName)
          .fold(problem => throw unusable(FromName, parsed, reader, problem), identity)
      catch {
        case e: AvroConversionException => throw unusable(FromName, parsed, reader, e.getMessage)
        case e: JsonSchemaException => throw unusable(FromName, parsed, reader, e.getMessage)
        case e: ProtoSchemaException => throw unusable(FromName, parsed, reader, e.getMessage)
      }
    val undecodable = parsed.mode match {
      case DecodeMode.Permissive =>
        SparkSession.getActiveSession.map(
          _.sparkContext.longAccumulator(s"$FromName undecodable records ($registryName/$schemaName)"))
      case DecodeMode.FailFast => None
    }
    FromGlueRegistry(data, GlueDecoding(parsed, reader, format, undecodable))
  }

  /**
   * `to_glue_registry` of `struct`, encoding as schema `schemaName` of registry `registryName`: the options
   * read now; the version chosen when the struct's type is known ([[ToGlueRegistry]]).
   */
  def toGlueRegistry(
      struct: Expression,
      schemaName: String,
      registryName: String,
      options: Map[String, String]): ToGlueRegistry = {
    val schema = SchemaRef(registryName, schemaName)
    ToGlueRegistry(
      struct,
      new GlueEncodingCall(GlueFunctionOptions.parse(ToName, GlueFunctionOptions.encoding, schema, options)))
  }

  /**
   * Refuses a version `function` cannot work with: one not AVAILABLE, not of the option dataFormat's, or not
   * PROTOBUF when the option messageName is given.
   */
  def checkUsable(function: String, options: GlueFunctionOptions, version: SchemaVersion): Unit = {
    if (!version.available)
      throw unusable(
        function,
        options,
        version,
        s"its status is ${version.status}: name an AVAILABLE version with the option schemaVersion")
    options.dataFormat.filter(_ != version.dataFormat).foreach { expected =>
      throw unusable(function, options, version, s"the option dataFormat says $expected")
    }
    if (options.messageName.isDefined && version.dataFormat != "PROTOBUF")
      throw unusable(
        function,
        options,
        version,
        s"the option messageName names a message of a PROTOBUF schema's .proto file, and this schema is " +
          s"${version.dataFormat}, of one record type. Remove messageName"
      )
  }

  private def unusable(function: String, options: GlueFunctionOptions, version: SchemaVersion, problem: String) =
    GlueRegistryErrors.schemaUnusable(
      function,
      options.schema.schemaName,
      options.schema.registryName,
      version.versionNumber.toString,
      version.dataFormat,
      problem)

  /** The SQL functions, as a session extension registers them: name, description, builder. */
  def sqlFunctions: Seq[(FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression)] = Seq(
    (
      FunctionIdentifier(FromName),
      info(
        classOf[FromGlueRegistry],
        FromName,
        s"$FromSignature - Decodes records framed by the AWS Glue Schema Registry into the reader schema's " +
          "type: the schema's latest version, or the option schemaVersion's."
      ),
      fromSql
    ),
    (
      FunctionIdentifier(ToName),
      info(
        classOf[ToGlueRegistry],
        ToName,
        s"$ToSignature - Encodes each row of a struct as a record framed by the AWS Glue Schema Registry, " +
          "written with the schema's latest version (or the option schemaVersion's)."
      ),
      toSql
    ),
    (
      FunctionIdentifier(HeaderName),
      info(
        classOf[GlueRegistryHeader],
        HeaderName,
        s"$HeaderName(data BINARY) - The AWS Glue Schema Registry's header of a record (schema version id, " +
          "compression, inflated payload), or null if the registry did not frame it."
      ),
      headerSql
    )
  )

  /** What DESCRIBE FUNCTION shows: the usage; Spark knows the function as one a library registered. */
  private def info(expression: Class[_], name: String, usage: String): ExpressionInfo =
    new ExpressionInfo(expression.getName, null, name, usage, "", "", "", "", "", "", "scala_udf")

  private def fromSql(arguments: Seq[Expression]): Expression =
    registryCall(FromName, FromSignature, arguments)(fromGlueRegistry)

  private def toSql(arguments: Seq[Expression]): Expression =
    registryCall(ToName, ToSignature, arguments)(toGlueRegistry)

  /** A call `function(column, schemaName[, registryName[, options]])` of SQL, its literals read. */
  private def registryCall(function: String, signature: String, arguments: Seq[Expression])(
      build: (Expression, String, String, Map[String, String]) => Expression): Expression = {
    val literals = new Literals(function, signature)
    arguments match {
      case Seq(column, schema, rest @ _*) if rest.size <= 2 =>
        val registry =
          rest.headOption.map(literals.string(_, "registryName")).getOrElse(GlueFunctionOptions.DefaultRegistry)
        val options = rest.lift(1).map(literals.map).getOrElse(Map.empty[String, String])
        build(column, literals.string(schema, "schemaName"), registry, options)
      case _ =>
        throw KinesisErrors.functionArguments(function, signature, s"it was given ${arguments.size} arguments")
    }
  }

  private def headerSql(arguments: Seq[Expression]): Expression = arguments match {
    case Seq(data) => GlueRegistryHeader(data)
    case _ =>
      throw KinesisErrors.functionArguments(
        HeaderName,
        s"$HeaderName(data BINARY)",
        s"it was given ${arguments.size} arguments")
  }

  /** The literal arguments of a SQL call of `function`, read; failing, says which argument, not its value. */
  private final class Literals(function: String, signature: String) {

    def string(argument: Expression, name: String): String = {
      val value =
        if (!argument.foldable || argument.dataType != StringType) None
        else Option(evaluate(argument, name)).map(_.toString)
      value.filter(_.trim.nonEmpty).getOrElse {
        throw KinesisErrors
          .functionArguments(function, signature, s"$name must be a string literal, not empty, and is ${argument.sql}")
      }
    }

    def map(argument: Expression): Map[String, String] = argument.dataType match {
      case MapType(StringType, StringType, _) if argument.foldable =>
        Option(evaluate(argument, "options").asInstanceOf[MapData]).fold(Map.empty[String, String]) { map =>
          val keys = map.keyArray()
          val values = map.valueArray()
          (0 until map.numElements()).map { i =>
            val key = keys.getUTF8String(i).toString
            if (values.isNullAt(i))
              throw KinesisErrors.functionArguments(function, signature, s"the option $key is null")
            key -> values.getUTF8String(i).toString
          }.toMap
        }
      case _ =>
        throw KinesisErrors.functionArguments(
          function,
          signature,
          s"options must be a map of string literals, such as map('schemaVersion', '2'), and is of type " +
            argument.dataType.simpleString)
    }

    /** The value of a literal argument; failing, says which argument, not its text (options may hold keys). */
    private def evaluate(argument: Expression, name: String): Any =
      try argument.eval()
      catch {
        case NonFatal(e) =>
          throw KinesisErrors.functionArguments(
            function,
            signature,
            s"$name cannot be evaluated: ${e.getClass.getSimpleName}")
      }
  }
}
