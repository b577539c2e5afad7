# SPDX-License-Identifier: Apache-2.0
"""End-to-end: a Spark Declarative Pipeline (``spark-pipelines``, Spark 4.1 and later) that reads a Kinesis
stream into a streaming table, decodes it in Python, and keeps an aggregate in a materialized view, run twice
against the tests' Kinesis with the built jar: the second run adds only what came since.

The project and its setting up are the ones ``docs/guides/pipelines.md`` shows, read from it, with the tests'
stream, endpoint and keys. On 4.2 and later the raw table is SQL's ``FROM STREAM read_kinesis(...)``; on 4.1,
whose SQL has no ``STREAM f(...)``, a Python table returning ``spark.readStream.format("kinesis")``. Two
pipeline runs take minutes, so dev/test runs this on the primary line only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Kinesis, copied_connector_jar
from pyspark.sql import SparkSession
from test_end_to_end import put

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "pipelines.md"


def guide_files() -> dict[str, str]:
    """The project's files as the guide shows them: each fenced block after the paragraph naming its path."""
    files: dict[str, str] = {}
    text = GUIDE.read_text()
    for block in re.finditer(r"^```\w+\n(.*?)^```$", text, re.DOTALL | re.MULTILINE):
        before = text[: block.start()].rstrip().split("\n\n")[-1]
        named = re.findall(r"`([\w./-]+\.(?:sql|py|yml))`", before)
        if named:
            files[named[0]] = block.group(1)
    return files


def spark_pipelines() -> Path:
    """This PySpark's ``spark-pipelines``."""
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-pipelines"


def project(tmp_path: Path, kinesis: Kinesis, stream: str, sql_streams: bool) -> Path:
    """The guide's pipeline, reading `stream` at the tests' Kinesis and keeping its state under `tmp_path`."""
    files = guide_files()
    assert set(files) == {
        "spark-pipeline.yml",
        "transformations/raw_orders.sql",
        "transformations/raw_orders.py",
        "transformations/orders.py",
        "transformations/totals.sql",
    }, sorted(files)
    options = kinesis.options(stream)
    assert not any("'" in value or "\\" in value for value in options.values())
    arguments = ", ".join(f"{key} => '{value}'" for key, value in options.items())
    files["transformations/raw_orders.sql"] = replaced(
        files["transformations/raw_orders.sql"], "streamName => 'orders', region => 'eu-west-1'", arguments
    )
    files["transformations/raw_orders.py"] = replaced(
        files["transformations/raw_orders.py"],
        """.option("streamName", "orders")\n        .option("region", "eu-west-1")""",
        f".options(**{json.dumps(options)})",
    )
    files["spark-pipeline.yml"] = replaced(
        files["spark-pipeline.yml"], "file:///var/pipelines/orders/storage", (tmp_path / "storage").as_uri()
    )
    del files["transformations/raw_orders.py" if sql_streams else "transformations/raw_orders.sql"]
    root = tmp_path / "orders-pipeline"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def replaced(text: str, old: str, new: str) -> str:
    assert old in text, f"the guide's file no longer has {old!r}"
    return text.replace(old, new)


def spark_conf_dir(tmp_path: Path, jar: Path, warehouse: Path) -> Path:
    """A Spark configuration folder as the guide makes one: ``python -m pyspark_kinesis spark-defaults``'s
    lines (with the built jar), a catalog that outlives a run, and the tests' own settings."""
    made = subprocess.run(
        [sys.executable, "-m", "pyspark_kinesis", "spark-defaults"],
        env={**os.environ, "SPARK_KINESIS_JAR": str(jar)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    conf = tmp_path / "conf"
    conf.mkdir()
    metastore = f"jdbc:derby:;databaseName={tmp_path / 'metastore'};create=true"
    own = {
        # The guide's catalog, which outlives a run, with its database here.
        "spark.sql.catalogImplementation": "hive",
        "spark.hadoop.javax.jdo.option.ConnectionURL": metastore,
        "spark.sql.warehouse.dir": str(warehouse),
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "2",
    }
    lines = "".join(f"{key} {value}\n" for key, value in own.items())
    (conf / "spark-defaults.conf").write_text(made.stdout + lines)
    return conf


def run_pipeline(root: Path, conf: Path) -> subprocess.CompletedProcess[str]:
    """``spark-pipelines run`` of the project, with the Spark configuration folder `conf`."""
    import pyspark

    env = {
        **os.environ,
        "SPARK_HOME": str(Path(pyspark.__file__).parent),
        "SPARK_CONF_DIR": str(conf),
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_LOCAL_IP": "127.0.0.1",
    }
    return subprocess.run(
        [str(spark_pipelines()), "run", "--spec", str(root / "spark-pipeline.yml")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_a_pipeline_reads_kinesis_into_a_streaming_table_and_keeps_totals(
    spark: SparkSession,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    kinesis: Kinesis,
    stream: str,
) -> None:
    import pyspark

    version = tuple(int(part) for part in pyspark.__version__.split(".")[:2])
    if version < (4, 1):
        pytest.skip("Spark Declarative Pipelines came with Spark 4.1")
    root = project(tmp_path, kinesis, stream, sql_streams=version >= (4, 2))
    warehouse = tmp_path / "warehouse"
    conf = spark_conf_dir(tmp_path, copied_connector_jar(tmp_path_factory), warehouse)

    def send(orders: list[tuple[str, str, float]]) -> None:
        records = [
            (customer, json.dumps({"id": i, "customer": customer, "amount": amount}).encode())
            for i, customer, amount in orders
        ]
        put(kinesis.client(), stream, records)

    first = [(f"o{i}", f"c{i % 3}", float(i)) for i in range(30)]
    send(first)
    ran = run_pipeline(root, conf)
    assert ran.returncode == 0, (ran.stdout + ran.stderr)[-5000:]

    second = [(f"o{i}", f"c{i % 4}", 1.5) for i in range(30, 42)]
    send(second)
    ran = run_pipeline(root, conf)
    assert ran.returncode == 0, (ran.stdout + ran.stderr)[-5000:]

    expected: dict[str, tuple[int, float]] = {}
    for _id, customer, amount in first + second:
        count, total = expected.get(customer, (0, 0.0))
        expected[customer] = (count + 1, total + amount)
    totals = spark.read.parquet(str(warehouse / "totals")).collect()
    assert {r["customer"]: (r["orders"], r["amount"]) for r in totals} == expected
    orders = spark.read.parquet(str(warehouse / "orders")).collect()
    assert sorted(r["id"] for r in orders) == sorted(i for i, _c, _a in first + second), "each order once"
