# SPDX-License-Identifier: Apache-2.0
"""Column functions of the connector: records framed by the AWS Glue Schema Registry, in any binary column
(a Kinesis record's ``data``, a Kafka record's ``value``).

:func:`from_glue_registry` decodes them into a struct of the schema's type, :func:`to_glue_registry` encodes
a struct column as them, :func:`glue_registry_header` shows their framing. On a classic session they need
only the connector's jar; under Spark Connect they are SQL functions of the server, which must start with
the connector's session extension
(``spark.sql.extensions=io.github.sparkkinesis.KinesisSparkExtensions``, which
:func:`~pyspark_kinesis.configure_spark_with_kinesis` sets).
"""

from __future__ import annotations

from collections.abc import Mapping

from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

from pyspark_kinesis import _connect, _jvm
from pyspark_kinesis.errors import KinesisError, KinesisOptionError

__all__ = ["DEFAULT_REGISTRY", "from_glue_registry", "glue_registry_header", "to_glue_registry"]

#: The registry a schema is looked up in when none is named: the AWS Glue Schema Registry's default.
DEFAULT_REGISTRY = "default-registry"


def from_glue_registry(
    data: Column | str,
    schema_name: str,
    registry_name: str = DEFAULT_REGISTRY,
    options: Mapping[str, str] | None = None,
) -> Column:
    """Decodes records framed by the AWS Glue Schema Registry into a struct of the type of schema
    ``schema_name``'s latest version (or the version the option ``schemaVersion`` names), which the registry
    is asked for now. Each record is read with the version its header names, asked once per version and
    executor, and resolved to that one by the format's rules (Avro's schema resolution, Protobuf's field
    numbers).

    :param data: the binary column of framed records, or its name
    :param options: ``region``, ``endpoint`` (the Glue endpoint), the connector's credential and role options
        (``awsAccessKey``, ``roleArn``, ...), ``schemaVersion`` (``latest`` or a number), ``mode``
        (``FAILFAST``, the default, or ``PERMISSIVE``: a record that cannot be decoded is null),
        ``dataFormat`` (``AVRO``, ``JSON`` or ``PROTOBUF``, checked against the registry's) and
        ``messageName`` (for a Protobuf schema, the message of its ``.proto`` file records are read as, by
        full or simple name; the file's first message by default)
    :raises KinesisOptionError: for an option the function does not take or cannot read, or a schema it
        cannot decode
    """
    return _registry_call("from_glue_registry", data, schema_name, registry_name, options)


def to_glue_registry(
    struct: Column | str,
    schema_name: str,
    registry_name: str = DEFAULT_REGISTRY,
    options: Mapping[str, str] | None = None,
) -> Column:
    """Encodes each row of a struct column as a record framed by the AWS Glue Schema Registry (Avro, JSON or
    Protobuf), written with schema ``schema_name``'s latest version (or the version the option
    ``schemaVersion`` names): the records that the registry's deserializers (KCL, Flink, Lambda) and
    :func:`from_glue_registry` read. The version is chosen when the query is analysed; a struct whose columns
    do not fit it is refused then, naming the column, unless the option ``registerSchema`` registers the
    struct's own schema as a new version.

    :param struct: the struct column, or its name (``F.struct("id", "item")`` makes one of columns)
    :param options: ``region``, ``endpoint`` (the Glue endpoint), the connector's credential and role options,
        ``schemaVersion`` (``latest`` or a number), ``dataFormat`` (checked against the registry's),
        ``messageName`` (for a Protobuf schema, the message of its ``.proto`` file rows are written as),
        ``registerSchema`` (``true`` to register the struct's schema when no version fits it) and
        ``compression`` (``none`` or ``zlib``)
    :raises KinesisOptionError: for an option the function does not take or cannot read (the struct is
        checked when the query is analysed)
    """
    return _registry_call("to_glue_registry", struct, schema_name, registry_name, options)


def glue_registry_header(data: Column | str) -> Column:
    """A record's AWS Glue Schema Registry header, a struct of ``schemaVersionId`` (a string),
    ``compression`` (``none`` or ``zlib``) and ``payload`` (inflated), or null for a record the registry did
    not frame: for routing records by schema yourself. Asks the registry nothing.

    :param data: the binary column of records, or its name
    """
    column = _column("glue_registry_header", data)
    spark = _session()
    if _connect.is_connect(spark):
        return F.call_function("glue_registry_header", column)
    functions = _jvm.connector(spark, "functions")
    return _jvm.column(_jvm.call(lambda: functions.glue_registry_header(_jvm.java_column(column))))


def _registry_call(
    function: str,
    data: Column | str,
    schema_name: str,
    registry_name: str,
    options: Mapping[str, str] | None,
) -> Column:
    """``function(data, schema_name, registry_name, options)``: over py4j on a classic session, the
    server's SQL function under Spark Connect."""
    _check_name(function, "schema_name", schema_name)
    _check_name(function, "registry_name", registry_name)
    given = _options(function, options)
    column = _column(function, data)
    spark = _session()
    if _connect.is_connect(spark):
        pairs = [F.lit(v) for key, value in given.items() for v in (key, value)]
        return F.call_function(
            function,
            column,
            F.lit(schema_name),
            F.lit(registry_name),
            F.create_map(*pairs) if pairs else F.create_map().cast("map<string,string>"),
        )
    functions = _jvm.connector(spark, "functions")
    call = getattr(functions, function)
    return _jvm.column(
        _jvm.call(lambda: call(_jvm.java_column(column), schema_name, registry_name, _jvm.java_map(given)))
    )


def _refused(function: str, problem: str) -> KinesisOptionError:
    signature = _SIGNATURES[function]
    return KinesisOptionError(
        f"{function} takes {signature}: {problem}.",
        "KINESIS_FUNCTION_ARGUMENTS",
        {"function": function, "signature": signature, "problem": problem},
    )


_SIGNATURES = {
    "from_glue_registry": (
        "from_glue_registry(data, schema_name, registry_name='default-registry', options=None)"
    ),
    "to_glue_registry": (
        "to_glue_registry(struct, schema_name, registry_name='default-registry', options=None)"
    ),
    "glue_registry_header": "glue_registry_header(data)",
}


def _column(function: str, data: Column | str) -> Column:
    if isinstance(data, str):
        return F.col(data)
    if isinstance(data, Column) or type(data).__name__ == "Column":
        return data
    argument = "struct" if function == "to_glue_registry" else "data"
    raise _refused(function, f"{argument} must be a Column or a column's name, not {type(data).__name__}")


def _check_name(function: str, argument: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise _refused(function, f"{argument} must be a name, a non-empty string, not {value!r}")


def _options(function: str, options: Mapping[str, str] | None) -> dict[str, str]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        problem = f"options must map option names to values, not be a {type(options).__name__}"
        raise _refused(function, problem)
    return {str(key): str(value) for key, value in options.items()}


def _session() -> SparkSession:
    spark = SparkSession.getActiveSession()
    if spark is None:
        raise KinesisError(
            "The registry functions need a Spark session: create one first (the schema is looked up when "
            "the function is called)."
        )
    return spark
