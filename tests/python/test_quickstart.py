# SPDX-License-Identifier: Apache-2.0
"""End-to-end: the README's quickstart, run as it is written, against the tests' Kinesis (the emulator, or
KINESIS_ENDPOINT) in the tests' PySpark session with the built connector jar.

Each block follows an HTML comment in the README, ``<!-- quickstart:write -->``, ``<!-- quickstart:read -->``
and ``<!-- quickstart:batch-read -->``. The test runs the block's code after these substitutions, and fails
if one of them finds nothing to replace (so a README edit that breaks them shows here):

- none for the session: the block's ``configure_spark_with_kinesis(SparkSession.builder...).getOrCreate()``
  runs as written, in a process where the tests' session (``conftest.spark``) runs already with the
  connector jar, so it leaves the builder as it is and ``getOrCreate()`` returns that session;
- ``.option("streamName", "orders")`` names a new stream of the run (``conftest.stream``);
- ``.option("region", "eu-west-1")`` becomes ``.options(**where)``, where ``where`` is what
  ``conftest.Kinesis.options`` gives: the endpoint, its region and, for the emulator, its keys;
- paths under ``/tmp/quickstart/`` go under the test's own temporary directory.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from conftest import ROOT, Kinesis
from pyspark.sql import SparkSession

README = ROOT / "README.md"


def quickstart_block(name: str) -> str:
    """The code of the ```python block that follows ``<!-- quickstart:<name> -->`` in the README."""
    text = README.read_text(encoding="utf-8")
    marker = f"<!-- quickstart:{name} -->"
    assert text.count(marker) == 1, f"README.md has no single {marker}"
    after = text[text.index(marker) + len(marker) :]
    opening = re.match(r"\s*```python\n", after)
    assert opening, f"{marker} is not followed by a python block"
    body = after[opening.end() :]
    return body[: body.index("\n```")]


def substituted(code: str, stream: str, tmp_path: Path) -> str:
    """The block's code as the test runs it (see the module's docstring)."""
    replacements = [
        (re.compile(r'\.option\("streamName", "orders"\)'), f'.option("streamName", "{stream}")'),
        (re.compile(r'\.option\("region", "eu-west-1"\)'), ".options(**where)"),
        (re.compile(r"/tmp/quickstart/"), f"{tmp_path.as_posix()}/"),
    ]
    for pattern, replacement in replacements:
        code, found = pattern.subn(replacement.replace("\\", "\\\\"), code)
        assert found or pattern.pattern.startswith("/tmp"), f"the quickstart block has no {pattern.pattern}"
    return code


def run_block(
    name: str, spark: SparkSession, kinesis: Kinesis, stream: str, tmp_path: Path
) -> dict[str, Any]:
    """Runs a quickstart block; returns its names (its DataFrames, its query)."""
    names: dict[str, Any] = {"where": kinesis.options(None)}
    code = substituted(quickstart_block(name), stream, tmp_path)
    exec(compile(code, f"README.md quickstart:{name}", "exec"), names)
    assert names["spark"] is spark, "the block's session is the one already running, with the connector"
    return names


def test_the_readme_quickstart_writes_reads_and_reads_a_range(
    spark: SparkSession, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    expected = {"alice", "bob", "carol"}

    # Write: three orders, one record each.
    run_block("write", spark, kinesis, stream, tmp_path)

    # Read: a streaming query from trim_horizon into Parquet files; all three rows arrive.
    read = run_block("read", spark, kinesis, stream, tmp_path)
    query = read["query"]
    try:
        query.processAllAvailable()
        rows = spark.read.parquet(str(tmp_path / "orders")).collect()
    finally:
        query.stop()
    assert len(rows) == 3, rows
    assert {row["json"].split('"customer":"')[1].split('"')[0] for row in rows} == expected
    assert all(row["shardId"] and row["sequenceNumber"] for row in rows)

    # Batch read: the same three records, from the oldest to what had arrived.
    batch = run_block("batch-read", spark, kinesis, stream, tmp_path)
    records = batch["everything"].selectExpr("partitionKey", "CAST(data AS STRING) AS json").collect()
    assert sorted(r["partitionKey"] for r in records) == ["1", "2", "3"]
    assert {r["json"].split('"customer":"')[1].split('"')[0] for r in records} == expected
