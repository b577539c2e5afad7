# SPDX-License-Identifier: Apache-2.0
"""The one place that reaches into PySpark's private attributes (``_jvm``, ``_jsparkSession``, ``_jwrite``).

Everything else in the package goes through these functions, so a change in PySpark's internals is fixed
here alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql.streaming.readwriter import DataStreamWriter

from pyspark_kinesis.errors import KinesisError

T = TypeVar("T")

_PACKAGE = "io.github.sparkkinesis"


def connector(spark: SparkSession, name: str) -> Any:
    """The connector's JVM class ``io.github.sparkkinesis.<name>``, e.g. ``api.KinesisOptionsRegistry``.

    :raises KinesisError: if the connector jar is not on the session
    """
    target = _connector_class(spark._jvm, name)
    if target is None:
        raise KinesisError(
            f"The Kinesis connector's JVM class {_PACKAGE}.{name} is not on this Spark session: build the "
            "session with pyspark_kinesis.configure_spark_with_kinesis(SparkSession.builder), or put the "
            "connector jar on spark.jars."
        )
    return target


def has_connector(jvm: Any) -> bool:
    """Whether the connector's classes are on the driver of the JVM behind a Py4J gateway view ``jvm``."""
    return _connector_class(jvm, "api.KinesisOptionsRegistry") is not None


def _connector_class(jvm: Any, name: str) -> Any:
    from py4j.java_gateway import JavaClass

    target: Any = jvm
    for part in f"{_PACKAGE}.{name}".split("."):
        target = getattr(target, part)
    return target if isinstance(target, JavaClass) else None


def builder_option(builder: SparkSession.Builder, key: str) -> str | None:
    """A setting given to a session builder so far (PySpark keeps them in ``_options``)."""
    options: dict[str, str] = builder._options
    return options.get(key)


def java_session(spark: SparkSession) -> Any:
    """The JVM session behind a classic PySpark session."""
    return spark._jsparkSession


def dataframe(spark: SparkSession, jdf: Any) -> DataFrame:
    """A Python DataFrame over a JVM one."""
    return DataFrame(jdf, spark)


def real_time_trigger(writer: DataStreamWriter, interval: str) -> bool:
    """Sets Spark's real-time trigger on a classic PySpark writer through its JVM writer.

    :return: False if the writer has no JVM writer (Spark Connect) or its Spark no ``Trigger.RealTime``
    """
    jwrite = getattr(writer, "_jwrite", None)
    spark = getattr(writer, "_spark", None)
    if jwrite is None or spark is None:
        return False
    trigger = spark._jvm.org.apache.spark.sql.streaming.Trigger
    from py4j.protocol import Py4JError

    try:
        real_time = trigger.RealTime(interval)
    except Py4JError:
        return False
    writer._jwrite = jwrite.trigger(real_time)
    return True


def java_column(column: Column) -> Any:
    """The JVM column behind a classic PySpark column."""
    return column._jc


def column(java_column: Any) -> Column:
    """A classic PySpark column over a JVM one."""
    return Column(java_column)


def java_map(values: Mapping[str, str]) -> dict[str, str]:
    """Options as py4j passes them to a JVM ``java.util.Map[String, String]``."""
    return {str(k): str(v) for k, v in values.items()}


def call(body: Callable[[], T]) -> T:
    """Runs a call into the JVM as PySpark runs its own: an error of the connector becomes its
    :class:`KinesisError` (a PySpark exception, see :mod:`pyspark_kinesis.errors`), any other JVM error the
    exception PySpark makes of it (or, for a JVM class PySpark has none for, Py4J's own)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions import captured

    try:
        return body()
    except Py4JJavaError as e:
        converted = captured.convert_exception(e.java_exception)
        if isinstance(converted, captured.UnknownException):
            raise
        raise converted from None
