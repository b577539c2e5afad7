"""Putting the connector on a Spark session."""

from __future__ import annotations

import re
from pathlib import Path

from pyspark.sql import SparkSession

from pyspark_kinesis import _jvm
from pyspark_kinesis.errors import KinesisError

__all__ = ["BUILT_FOR_SCALA", "BUILT_FOR_SPARK", "bundled_jar", "configure_spark_with_kinesis"]

#: The Spark version (major.minor) the bundled connector jar is built for.
BUILT_FOR_SPARK = "4.3"

#: The Scala version (major.minor) the bundled connector jar is built for.
BUILT_FOR_SCALA = "2.13"

_JARS = Path(__file__).parent / "jars"


def bundled_jar(directory: Path = _JARS) -> Path:
    """The connector jar the package carries.

    :raises KinesisError: if there is none, as in a source checkout where the jar is not built yet
    """
    jars = sorted(directory.glob("spark-kinesis_*.jar"))
    if not jars:
        raise KinesisError(
            f"The pyspark-kinesis package carries no connector jar (nothing in {directory}): install the "
            "built wheel, or build it with dev/build, which puts the jar there."
        )
    return jars[-1]


def configure_spark_with_kinesis(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Puts the connector jar this package carries on the session the builder makes (``spark.jars``,
    after any jars given already), so that ``pip install pyspark-kinesis`` is all a PySpark user needs::

        spark = configure_spark_with_kinesis(SparkSession.builder.appName("orders")).getOrCreate()

    :raises KinesisError: if the installed PySpark is not the Spark and Scala version the jar is built for
        (``BUILT_FOR_SPARK``, ``BUILT_FOR_SCALA``), or if the package carries no jar
    """
    check_pyspark()
    jar = str(bundled_jar())
    given = _jvm.builder_option(builder, "spark.jars")
    jars = [j for j in (given or "").split(",") if j.strip()]
    return builder.config("spark.jars", ",".join([*jars, jar] if jar not in jars else jars))


def check_pyspark(spark_version: str | None = None, pyspark_jars: Path | None = None) -> None:
    """Refuses a PySpark whose Spark or Scala version the bundled jar is not built for.

    :param spark_version: PySpark's version; by default the installed one
    :param pyspark_jars: PySpark's ``jars`` directory, where its Scala library tells the Scala version
    :raises KinesisError: naming both versions
    """
    import pyspark

    version = spark_version or pyspark.__version__
    if ".".join(version.split(".")[:2]) != BUILT_FOR_SPARK:
        raise KinesisError(
            f"This pyspark-kinesis is built for Spark {BUILT_FOR_SPARK} and PySpark is {version}: install "
            f"pyspark {BUILT_FOR_SPARK}.x, or the pyspark-kinesis built for Spark {version}."
        )
    jars = pyspark_jars or Path(pyspark.__file__).parent / "jars"
    scala = [
        m.group(1)
        for j in jars.glob("scala-library-*.jar")
        if (m := re.match(r"scala-library-(\d+\.\d+)", j.name))
    ]
    if scala and BUILT_FOR_SCALA not in scala:
        raise KinesisError(
            f"This pyspark-kinesis is built for Scala {BUILT_FOR_SCALA} and this PySpark runs Scala "
            f"{', '.join(scala)}: install the pyspark-kinesis built for it."
        )
