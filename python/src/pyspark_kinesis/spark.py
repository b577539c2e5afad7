# SPDX-License-Identifier: Apache-2.0
"""Putting the connector on a Spark session: the jar of the installed PySpark's Spark line.

The wheel carries the connector for every Spark line it is built for, in two parts per line, so that the
AWS SDK and its HTTP clients (most of the bytes, and the same for every line) are carried once:
``spark-kinesis-<line>-<version>-classes.jar`` (the connector's own classes for that Spark and Scala) and
``spark-kinesis-<version>-dependencies.jar`` (the shaded SDK, Netty and HttpClient, shared by every line).
Together they hold exactly what the line's Maven artifact ``spark-kinesis-<line>`` holds in one jar.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from pyspark.sql import SparkSession

from pyspark_kinesis import _connect, _jvm
from pyspark_kinesis.errors import KinesisError

if TYPE_CHECKING:  # PySpark's thin client (pyspark-client) has no SparkContext
    from pyspark import SparkContext

__all__ = ["bundled_lines", "configure_spark_with_kinesis", "connector_jars", "spark_line"]

_JARS = Path(__file__).parent / "jars"
_CLASSES = re.compile(r"spark-kinesis-(?P<line>\d+\.\d+_\d+\.\d+)-(?P<version>.+)-classes\.jar")
_DEPENDENCIES = "spark-kinesis-{version}-dependencies.jar"


#: The Spark setting that names session extensions, and the connector's, which registers its SQL functions.
EXTENSIONS_SETTING = "spark.sql.extensions"
EXTENSIONS_CLASS = "io.github.sparkkinesis.KinesisSparkExtensions"


def spark_line(spark_version: str | None = None, spark_jars: Path | None = None) -> str:
    """The Spark line of a Spark: its Spark and Scala versions, as ``<major.minor>_<major.minor>``.

    :param spark_version: Spark's version; by default the installed PySpark's
    :param spark_jars: Spark's ``jars`` directory, whose Scala library tells the Scala version; by default
        that of ``SPARK_HOME`` when set (PySpark then runs that Spark), else the PySpark package's
    :return: for example ``"3.5_2.12"`` for PySpark 3.5.6 from PyPI, ``"4.0_2.13"`` for PySpark 4.0.1
    :raises KinesisError: if the Scala version cannot be told
    """
    import pyspark

    version = spark_version or pyspark.__version__
    if spark_jars is None:
        home = os.environ.get("SPARK_HOME")
        spark_jars = Path(home) / "jars" if home else Path(pyspark.__file__).parent / "jars"
        if not home and not spark_jars.is_dir():
            raise KinesisError(
                f"This PySpark {version} has no Spark of its own (it is PySpark's Spark Connect client, "
                "pyspark-client), so it has no Spark line: connect it to a Spark Connect server that has the "
                f"connector. {_connect.SERVER_SETUP}"
            )
    scala = sorted(
        {
            m.group(1)
            for jar in spark_jars.glob("scala-library-*.jar")
            if (m := re.match(r"scala-library-(\d+\.\d+)\.", jar.name))
        }
    )
    if len(scala) != 1:
        raise KinesisError(
            f"Could not tell which Scala Spark {version} runs: {spark_jars} holds "
            f"{'no scala-library jar' if not scala else 'scala-library jars of ' + ', '.join(scala)}. "
            "Set SPARK_HOME to the Spark installation PySpark runs."
        )
    return f"{'.'.join(version.split('.')[:2])}_{scala[0]}"


def bundled_lines(directory: Path | None = None) -> list[str]:
    """The Spark lines whose connector this package carries, such as ``["3.5_2.12", "4.0_2.13"]``.

    :param directory: where the jars are; by default the package's own ``jars`` folder
    """
    jars = (directory or _JARS).glob("*.jar")
    return sorted({m["line"] for jar in jars if (m := _CLASSES.fullmatch(jar.name))})


def connector_jars(line: str | None = None, directory: Path | None = None) -> list[Path]:
    """The jars that put the connector on a session of a Spark line: the line's classes, then the shaded
    dependencies every line shares.

    :param line: the Spark line, such as ``"3.5_2.12"``; by default that of the installed PySpark
    :param directory: where the jars are; by default the package's own ``jars`` folder
    :raises KinesisError: if the package carries no connector for the line (naming the lines it has), or
        carries no jars at all, as in a source checkout before ``dev/build``
    """
    wanted = line or spark_line()
    directory = directory or _JARS
    found = {
        m["line"]: (jar, m["version"])
        for jar in directory.glob("*.jar")
        if (m := _CLASSES.fullmatch(jar.name))
    }
    if not found:
        raise KinesisError(
            f"The pyspark-kinesis package carries no connector jar (nothing in {directory}): install the "
            "built wheel, or build it with dev/build, which puts the jars there."
        )
    if wanted not in found:
        raise KinesisError(
            f"This Spark is line {wanted} (Spark_Scala), and pyspark-kinesis carries the connector for "
            f"{', '.join(sorted(found))} only: install a PySpark of one of those lines, or put the connector "
            "jar of your Spark on spark.jars yourself."
        )
    classes, version = found[wanted]
    dependencies = directory / _DEPENDENCIES.format(version=version)
    if not dependencies.is_file():
        raise KinesisError(f"The pyspark-kinesis package is incomplete: {dependencies} is missing.")
    return [classes, dependencies]


def configure_spark_with_kinesis(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Puts the connector jars this package carries for the installed PySpark's Spark and Scala versions on
    the session the builder makes (``spark.jars``, after any jars given already), so that
    ``pip install pyspark-kinesis`` is all a PySpark user needs, offline::

        spark = configure_spark_with_kinesis(SparkSession.builder.appName("orders")).getOrCreate()

    The session gets the connector's SQL functions too (``from_glue_registry``, ...): the builder adds the
    connector's session extension to ``spark.sql.extensions``.

    A builder of a Spark Connect session whose server PySpark starts in this process
    (``.remote("local[...]")``) gets the jars and the connector's server plugin, which the consumer manager
    calls. A builder of a session on a Spark Connect server elsewhere (``.remote("sc://...")``) cannot put a
    jar on that server: the server must have the connector from its start (see docs/guides/spark-connect.md).

    When Spark already runs in this process (the ``pyspark`` shell, a notebook, an AWS Glue job), its jars
    were fixed when it started and ``getOrCreate()`` returns that session: the builder is returned as it is
    if the connector is on it already, and otherwise this raises, saying how to start Spark with it.

    :raises KinesisError: if the package carries no connector for the installed PySpark's Spark line, the
        builder connects to a Spark Connect server elsewhere (the message says how to give that server the
        connector), or Spark already runs in this process without the connector
    """
    remote = _remote(builder)
    if remote is not None and not remote.startswith("local"):
        raise KinesisError(
            "configure_spark_with_kinesis puts the connector on a Spark that this process starts; this "
            f"builder connects to the Spark Connect server at {remote}, which must have the connector "
            "itself. "
            f"{_connect.SERVER_SETUP}"
        )
    running = _running_context() if remote is None else None
    if running is not None:
        return _running(builder, running)
    given = _jvm.builder_option(builder, "spark.jars")
    jars = [j for j in (given or "").split(",") if j.strip()]
    jars += [str(jar) for jar in connector_jars() if str(jar) not in jars]
    builder = builder.config("spark.jars", ",".join(jars))
    builder = _appended(builder, EXTENSIONS_SETTING, EXTENSIONS_CLASS)
    if remote is not None:
        builder = _appended(builder, _connect.PLUGIN_SETTING, _connect.PLUGIN_CLASS)
    return builder


def _appended(builder: SparkSession.Builder, setting: str, value: str) -> SparkSession.Builder:
    """The builder with ``value`` added to the comma-separated list of classes ``setting`` holds."""
    values = [v for v in (_jvm.builder_option(builder, setting) or "").split(",") if v.strip()]
    if value in values:
        return builder
    return builder.config(setting, ",".join([*values, value]))


def _running_context() -> SparkContext | None:
    """The Spark that runs in this process, if any (never on PySpark's thin client, which has none)."""
    try:
        from pyspark import SparkContext
    except ImportError:
        return None
    return SparkContext._active_spark_context


def _running(builder: SparkSession.Builder, context: SparkContext) -> SparkSession.Builder:
    """The builder, for a Spark already running in this process: unchanged if the connector is on it."""
    if _jvm.has_connector(context._jvm):
        return builder
    try:
        jars = ",".join(str(jar) for jar in connector_jars())
    except KinesisError:
        jars = "<the connector jar of your Spark line>"
    raise KinesisError(
        "Spark already runs in this process (as in the pyspark shell, a notebook or an AWS Glue job) without "
        "the Kinesis connector: its jars were fixed when it started, so configure_spark_with_kinesis cannot "
        "add the connector, and getOrCreate() would return that session. Start Spark with the connector "
        f"instead: pyspark --jars {jars} (or spark-submit --jars, or the spark.jars setting of the "
        "notebook's or job's Spark configuration; on Glue, the job parameter --extra-jars), or call "
        "configure_spark_with_kinesis before the first session is made."
    )


def _remote(builder: SparkSession.Builder) -> str | None:
    """The Spark Connect server the builder's session connects to (``local...`` for one PySpark starts in this
    process); ``None`` for a classic session."""
    remote = _jvm.builder_option(builder, "spark.remote") or os.environ.get("SPARK_REMOTE")
    if remote:
        return remote
    if (_jvm.builder_option(builder, "spark.api.mode") or "").lower() == "connect":
        return _jvm.builder_option(builder, "spark.master") or "local[*]"
    return None
