# SPDX-License-Identifier: Apache-2.0
"""End-to-end: SQL's ``read_kinesis`` in a fresh PySpark session with the built connector jar and its session
extension: a plain ``SELECT`` is a batch read of what boto3 wrote, ``FROM STREAM`` a stream on Spark 4.2 and
later (a syntax error before), a bad argument is PySpark's typed error, and the setting that renames it.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest
from conftest import Kinesis, copied_connector_jar, run_program
from pyspark.errors import ParseException
from pyspark.sql import SparkSession
from pyspark_kinesis import KinesisOptionError
from test_end_to_end import ids, put, written_ids


def arguments(kinesis: Kinesis, stream: str, **extra: str) -> str:
    """The SQL arguments reading `stream` at the tests' Kinesis, then `extra`: ``key => 'value', ...``."""
    options = kinesis.options(stream, **extra)
    assert not any("'" in value or "\\" in value for value in options.values())
    return ", ".join(f"{key} => '{value}'" for key, value in options.items())


def streams_from_sql(spark: SparkSession) -> bool:
    """Whether this Spark parses ``FROM STREAM f(...)``: 4.2 and later."""
    major, minor = (int(part) for part in spark.version.split(".")[:2])
    return (major, minor) >= (4, 2)


@pytest.mark.line_smoke
def test_read_kinesis_reads_in_a_batch_and_under_stream_as_a_stream(
    spark: SparkSession, kinesis: Kinesis, stream: str
) -> None:
    sent = [(f"key-{i}", f"value-{i}".encode()) for i in range(30)]
    expected = written_ids(put(kinesis.client(), stream, sent))

    batch = spark.sql(f"SELECT * FROM read_kinesis({arguments(kinesis, stream)})")
    assert not batch.isStreaming
    assert ids(batch.collect()) == expected
    counted = spark.sql(
        f"SELECT count(*) AS n FROM read_kinesis({arguments(kinesis, stream)}) WHERE partitionKey = 'key-7'"
    )
    assert counted.collect()[0]["n"] == 1

    query_text = (
        f"SELECT * FROM STREAM read_kinesis({arguments(kinesis, stream, initialPosition='trim_horizon')})"
    )
    if not streams_from_sql(spark):
        with pytest.raises(ParseException):
            spark.sql(query_text)
        return
    streaming = spark.sql(query_text)
    assert streaming.isStreaming
    table = f"read_kinesis_{secrets.token_hex(4)}"
    query = streaming.writeStream.format("memory").queryName(table).trigger(availableNow=True).start()
    try:
        assert query.awaitTermination(120), "the AvailableNow run did not end by itself"
        assert query.exception() is None
        assert ids(spark.table(table).collect()) == expected
    finally:
        query.stop()


@pytest.mark.line_smoke
def test_a_bad_argument_is_the_connectors_typed_error_naming_it(
    spark: SparkSession, kinesis: Kinesis, stream: str
) -> None:
    with pytest.raises(KinesisOptionError) as unknown:
        spark.sql(f"SELECT * FROM read_kinesis({arguments(kinesis, stream, bogus='1')})")
    assert unknown.value.getCondition() == "KINESIS_FUNCTION_OPTION_UNKNOWN"
    assert "read_kinesis has no option 'bogus'; it takes streamName, " in str(unknown.value)
    with pytest.raises(KinesisOptionError) as batch_only:
        spark.sql(f"SELECT * FROM read_kinesis({arguments(kinesis, stream, maxRecordsPerTrigger='10')})")
    assert batch_only.value.getCondition() == "KINESIS_OPTION_NOT_IN_BATCH_READ"


RENAMED = """
import json
import sys

from pyspark.sql import SparkSession

jar = sys.argv[1]
seen = {}


def session(name):
    return (
        SparkSession.builder.master("local[1]")
        .config("spark.jars", jar)
        .config("spark.sql.extensions", "io.github.sparkkinesis.KinesisSparkExtensions")
        .config("spark.kinesis.sql.readFunctionName", name)
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )


try:
    session("range")
    seen["range"] = "created"
except Exception as error:
    seen["range"] = str(error)
    from pyspark import SparkContext

    SparkContext.getOrCreate().stop()

spark = session("kinesis_read")
for function in ("kinesis_read", "read_kinesis"):
    try:
        seen[function] = " ".join(r[0] for r in spark.sql(f"DESCRIBE FUNCTION {function}").collect())
    except Exception as error:
        seen[function] = "unknown: " + type(error).__name__
spark.stop()
print(json.dumps(seen))
"""


def test_the_setting_renames_the_function_and_refuses_a_name_spark_has(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    jar = copied_connector_jar(tmp_path_factory)
    ran = run_program(tmp_path, "renamed.py", RENAMED, [str(jar)], timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    seen: dict[str, Any] = json.loads(ran.stdout.strip().splitlines()[-1])
    assert "[KINESIS_SETTING_INVALID] Spark setting 'spark.kinesis.sql.readFunctionName'" in seen["range"]
    assert "range is one of Spark's own table functions" in seen["range"]
    assert "kinesis_read(streamName => STRING" in seen["kinesis_read"]
    assert seen["read_kinesis"].startswith("unknown: ")
