# SPDX-License-Identifier: Apache-2.0
"""The one place that reaches into PySpark's private attributes (``_jvm``, ``_jsparkSession``, ``_jwrite``).

Everything else in the package goes through these functions, so a change in PySpark's internals is fixed
here alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming.readwriter import DataStreamWriter

from pyspark_kinesis.errors import KinesisError, KinesisOptionError, from_java

T = TypeVar("T")

_PACKAGE = "io.github.sparkkinesis"


def connector(spark: SparkSession, name: str) -> Any:
    """The connector's JVM class ``io.github.sparkkinesis.<name>``, e.g. ``api.KinesisOptionsRegistry``.

    :raises KinesisError: if the connector jar is not on the session
    """
    gateway = spark._jvm
    target: Any = gateway
    for part in f"{_PACKAGE}.{name}".split("."):
        target = getattr(target, part)
    from py4j.java_gateway import JavaClass, JavaPackage

    if isinstance(target, JavaPackage) or not isinstance(target, JavaClass):
        raise KinesisError(
            f"The Kinesis connector's JVM class {_PACKAGE}.{name} is not on this Spark session: build the "
            "session with pyspark_kinesis.configure_spark_with_kinesis(SparkSession.builder), or put the "
            "connector jar on spark.jars."
        )
    return target


def builder_option(builder: SparkSession.Builder, key: str) -> str | None:
    """A setting given to a session builder so far (PySpark keeps them in ``_options``)."""
    options: dict[str, str] = builder._options
    return options.get(key)


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


def java_map(values: Mapping[str, str]) -> dict[str, str]:
    """Options as py4j passes them to a JVM ``java.util.Map[String, String]``."""
    return {str(k): str(v) for k, v in values.items()}


def call(body: Callable[[], T]) -> T:
    """Runs a call into the JVM; an error of the connector becomes the matching :class:`KinesisError`.

    PySpark converts some JVM exceptions (IllegalArgumentException among them) into its own captured
    exceptions before they get here, and leaves the others as Py4J raised them; the connector's error is
    looked for in either's JVM cause chain. Any other JVM error becomes a :class:`KinesisError` with its
    message.
    """
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import CapturedException

    try:
        return body()
    except KinesisError:
        raise
    except Py4JJavaError as e:
        raise _translated(e.java_exception) from None
    except CapturedException as e:
        origin = e._origin
        if origin is None:
            raise
        raise _translated(origin) from None


def _translated(java_exception: Any) -> KinesisError:
    found = from_java(java_exception)
    if found is not None:
        return found
    name = str(java_exception.getClass().getName())
    message = str(java_exception.getMessage())
    if name == "java.lang.IllegalArgumentException":
        return KinesisOptionError(message)
    return KinesisError(message)
