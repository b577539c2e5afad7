# SPDX-License-Identifier: Apache-2.0
"""The release's wheel in a fresh virtual environment beside one pyspark (dev/release-check runs this with
that environment's Python, from outside the source tree): the package imports from the environment,
configure_spark_with_kinesis puts the jars of the installed pyspark's Spark line on a session, and a read
without a stream fails at load() with the connector's KINESIS_OPTION_MISSING, which only the loaded jar can
raise.

    <venv>/bin/python release_smoke.py <expected pyspark-kinesis version>
"""

from __future__ import annotations

import os
import sys


def main(expected_version: str) -> int:
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
    import pyspark
    import pyspark_kinesis
    from pyspark.sql import SparkSession
    from pyspark_kinesis import KinesisOptionError, configure_spark_with_kinesis
    from pyspark_kinesis.spark import connector_jars, spark_line

    where = os.path.dirname(pyspark_kinesis.__file__)
    if not where.startswith(sys.prefix) or pyspark_kinesis.__version__ != expected_version:
        print(
            f"pyspark_kinesis {pyspark_kinesis.__version__} was imported from {where}, expected "
            f"{expected_version} from the environment {sys.prefix}",
            file=sys.stderr,
        )
        return 1
    builder = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
    spark = configure_spark_with_kinesis(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        spark.read.format("kinesis").option("region", "us-east-1").load()
        condition = None
    except KinesisOptionError as refused:
        condition = refused.getCondition()
    finally:
        spark.stop()
    if condition != "KINESIS_OPTION_MISSING":
        print(
            f"a read without streamName gave {condition or 'no error'}, not KINESIS_OPTION_MISSING",
            file=sys.stderr,
        )
        return 1
    jars = ", ".join(jar.name for jar in connector_jars())
    print(
        f"Python {sys.version.split()[0]}, pyspark {pyspark.__version__} (line {spark_line()}): "
        f"{jars} loaded; a read without streamName raised KinesisOptionError {condition}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
