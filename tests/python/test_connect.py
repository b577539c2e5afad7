# SPDX-License-Identifier: Apache-2.0
"""Spark Connect: the connector jar added to a session at run time with ``addArtifacts``, as a Connect client
does, reads a stream (a local Connect server started by PySpark; the primary line only, where dev/test
installs PySpark's Connect client)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Kinesis, connector_jar, run_program
from test_end_to_end import put

pytestmark = pytest.mark.connect

SCRIPT = """
import json, sys, time
from pyspark.sql import SparkSession

jar, endpoint, region, stream, access_key, secret_key = sys.argv[1:7]
spark = SparkSession.builder.remote("local[2]").config("spark.ui.enabled", "false").getOrCreate()
spark.addArtifacts(jar)
keys = {"awsAccessKey": access_key, "awsSecretKey": secret_key} if access_key else {}
query = (
    spark.readStream.format("kinesis")
    .options(streamName=stream, endpoint=endpoint, region=region, initialPosition="trim_horizon", **keys)
    .load()
    .selectExpr("CAST(data AS STRING) AS data")
    .writeStream.format("memory")
    .queryName("from_kinesis")
    .trigger(availableNow=True)
    .start()
)
ended = query.awaitTermination(120)
error = query.exception()
rows = sorted(r["data"] for r in spark.table("from_kinesis").collect())
print("RESULT", json.dumps({"ended": ended, "error": str(error) if error else None, "rows": rows}))
spark.stop()
"""


def test_a_jar_added_with_add_artifacts_reads_a_stream(kinesis: Kinesis, stream: str, tmp_path: Path) -> None:
    put(kinesis.client(), stream, [(f"k{i}", f"connect-{i}".encode()) for i in range(12)])
    ran = run_program(
        tmp_path,
        "connect_read.py",
        SCRIPT,
        [str(connector_jar()), *kinesis.program_args(stream)],
        timeout=300,
    )
    results = [line for line in ran.stdout.splitlines() if line.startswith("RESULT ")]
    assert results, ran.stdout[-2000:] + ran.stderr[-4000:]
    result = json.loads(results[0][len("RESULT ") :])
    expected = sorted(f"connect-{i}" for i in range(12))
    assert result == {"ended": True, "error": None, "rows": expected}, ran.stderr[-4000:]


ERRORS_SCRIPT = """
import json, sys
import pyspark_kinesis
from pyspark.errors import IllegalArgumentException
from pyspark.errors.exceptions.connect import IllegalArgumentException as ConnectIllegalArgumentException
from pyspark.sql import SparkSession

jar, endpoint, region, stream = sys.argv[1:5]
spark = SparkSession.builder.remote("local[2]").config("spark.ui.enabled", "false").getOrCreate()
spark.addArtifacts(jar)
try:
    (
        spark.readStream.format("kinesis")
        .options(streamName=stream, endpoint=endpoint, region=region, intialPosition="trim_horizon")
        .load()
        .writeStream.format("memory")
        .queryName("misspelt")
        .start()
    )
    outcome = {"raised": None}
except Exception as e:
    outcome = {
        "raised": type(e).__name__,
        "kinesis": isinstance(e, pyspark_kinesis.KinesisError),
        "value_error": isinstance(e, ValueError),
        "illegal_argument": isinstance(e, IllegalArgumentException),
        "connect_class": isinstance(e, ConnectIllegalArgumentException),
        "condition": e.getCondition(),
        "sql_state": e.getSqlState(),
        "parameters": e.getMessageParameters(),
        "message": str(e),
    }
print("RESULT", json.dumps(outcome))
spark.stop()
"""


def test_the_connectors_errors_reach_a_connect_client_as_kinesis_errors(
    kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    ran = run_program(
        tmp_path,
        "connect_errors.py",
        ERRORS_SCRIPT,
        [str(connector_jar()), *kinesis.program_args(stream)[:3]],
        timeout=300,
    )
    results = [line for line in ran.stdout.splitlines() if line.startswith("RESULT ")]
    assert results, ran.stdout[-2000:] + ran.stderr[-4000:]
    result = json.loads(results[0][len("RESULT ") :])
    assert result["raised"] == "KinesisOptionError", result
    # The connector's class, and the class PySpark's Connect client gives a JVM IllegalArgumentException.
    assert result["kinesis"] and result["value_error"], result
    assert result["illegal_argument"] and result["connect_class"], result
    assert result["condition"] == "KINESIS_OPTION_UNKNOWN", result
    assert result["sql_state"] == "42616", result
    assert result["parameters"] == {"key": "intialPosition", "suggestion": "initialPosition"}, result
    assert result["message"].startswith(
        "[KINESIS_OPTION_UNKNOWN] The Kinesis connector has no option 'intialPosition'; did you mean "
        "'initialPosition'?"
    ), result
