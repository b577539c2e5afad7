# SPDX-License-Identifier: Apache-2.0
"""What every Spark line must do, run on each line with that line's PySpark and jar (dev/test runs the tests
marked ``line_smoke`` there; the primary line runs them with everything else): read from every initial
position, AvailableNow, enhanced fan-out, a streaming write, real-time mode (or its clear refusal before
Spark 4.1), "user classpath first" class loaders, and a jar of another line refused in one line.
"""

from __future__ import annotations

import datetime as dt
import json
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pyspark
import pytest
from conftest import Kinesis, built_jar, connector_jar, run_program, spark_lines
from pyspark.sql import Row, SparkSession
from pyspark_kinesis import KinesisError, real_time
from pyspark_kinesis.spark import spark_line
from test_end_to_end import BatchCollector, Relay, poll, put, read

pytestmark = pytest.mark.line_smoke


def _available_now(spark: SparkSession, options: dict[str, str], checkpoint: Path) -> list[Row]:
    """Every row a Trigger.AvailableNow run of the source reads."""
    rows: list[Row] = []
    query = (
        read(spark, options)
        .writeStream.option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .foreachBatch(lambda batch, _: rows.extend(batch.collect()))
        .start()
    )
    assert query.awaitTermination(240), "the AvailableNow run did not end within 4 minutes"
    assert query.exception() is None, query.exception()
    return rows


def _data(rows: list[Row]) -> list[str]:
    return sorted(bytes(r["data"]).decode() for r in rows)


def test_every_initial_position_starts_where_it_says(
    spark: SparkSession, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    client = kinesis.client()
    put(client, stream, [(f"k{i}", f"old-{i}".encode()) for i in range(5)])
    time.sleep(1.5)  # arrival times are in milliseconds: keep the two groups well apart
    between = dt.datetime.now(dt.timezone.utc)
    time.sleep(1.5)
    put(client, stream, [(f"k{i}", f"mid-{i}".encode()) for i in range(5)])

    everything = _available_now(
        spark, kinesis.options(stream, initialPosition="trim_horizon"), tmp_path / "trim"
    )
    assert _data(everything) == sorted([f"old-{i}" for i in range(5)] + [f"mid-{i}" for i in range(5)])

    at = between.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    since = _available_now(
        spark,
        kinesis.options(stream, initialPosition=f'{{"at_timestamp": "{at}"}}'),
        tmp_path / "at",
    )
    assert _data(since) == sorted(f"mid-{i}" for i in range(5))

    collector = BatchCollector()
    query = collector.start(
        read(spark, kinesis.options(stream, initialPosition="latest")), tmp_path / "latest"
    )
    try:
        poll("the first batch", lambda: query.lastProgress, lambda p: p is not None, query)
        put(client, stream, [(f"k{i}", f"new-{i}".encode()) for i in range(5)])
        rows = poll("the new records", collector.rows, lambda rows: len(rows) >= 5, query)
        time.sleep(2)
        rows = collector.rows()
    finally:
        query.stop()
    assert _data(rows) == sorted(f"new-{i}" for i in range(5))


def test_enhanced_fan_out_reads_every_record_once(
    spark: SparkSession, kinesis: Kinesis, make_stream: Callable[[int], str], tmp_path: Path
) -> None:
    stream = make_stream(2)
    written = [f"efo-{i}" for i in range(40)]
    put(kinesis.client(), stream, [(f"k{i}", d.encode()) for i, d in enumerate(written)])
    options = kinesis.options(
        stream, initialPosition="trim_horizon", consumerMode="efo", requireConsumerDeregistration="true"
    )
    collector = BatchCollector()
    query = collector.start(read(spark, options), tmp_path / "efo")
    try:
        rows = poll("40 records by enhanced fan-out", collector.rows, lambda r: len(r) >= 40, query, 120)
    finally:
        query.stop()
    assert _data(rows) == sorted(written)


def test_a_streaming_write_from_kinesis_to_kinesis_delivers_every_row(
    spark: SparkSession, kinesis: Kinesis, make_stream: Callable[[int], str], tmp_path: Path
) -> None:
    source, target = make_stream(1), make_stream(2)
    put(kinesis.client(), source, [(f"k{i}", f"row-{i}".encode()) for i in range(100)])
    query = (
        read(spark, kinesis.options(source, initialPosition="trim_horizon"))
        .selectExpr("partitionKey", "upper(CAST(data AS STRING)) AS data")
        .writeStream.format("kinesis")
        .options(**kinesis.options(target))
        .option("checkpointLocation", str(tmp_path / "write"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(240), "the AvailableNow write did not end within 4 minutes"
    assert query.exception() is None, query.exception()
    read_back = _available_now(
        spark, kinesis.options(target, initialPosition="trim_horizon"), tmp_path / "read"
    )
    assert _data(read_back) == sorted(f"ROW-{i}" for i in range(100))


REFUSAL = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").config("spark.jars", sys.argv[1]).getOrCreate()
    try:
        spark.readStream.format("kinesis").option("streamName", "s").option("region", "us-east-1").load()
        print("LOADED")
    except Exception as e:
        print("REFUSED", *[line for line in str(e).splitlines() if "KINESIS_" in line][:1])
    """
)


def test_a_jar_of_another_line_is_refused_in_one_line_naming_both(tmp_path: Path) -> None:
    here = spark_line()
    other = next((line for line in spark_lines() if line != here and built_jar(line)), None)
    if other is None:
        pytest.fail("no jar of another Spark line is built to try: dev/test builds every line's jar")
    ran = run_program(tmp_path, "refusal.py", REFUSAL, [str(built_jar(other))], timeout=300)
    refused = [line for line in ran.stdout.splitlines() if line.startswith("REFUSED")]
    assert refused, ran.stdout[-2000:] + ran.stderr[-3000:]
    spark, scala = other.split("_")
    assert f"[KINESIS_WRONG_SPARK_LINE] This connector jar (spark-kinesis-{other} " in refused[0]
    assert f"is built for Spark {spark} with Scala {scala}, and this is Spark " in refused[0]
    assert f"io.github.sparkkinesis:spark-kinesis-{here}:" in refused[0]


USER_CLASSPATH_FIRST = textwrap.dedent(
    """
    import json, sys
    from pyspark.sql import SparkSession

    jar, endpoint, region, source, target, checkpoint, access_key, secret_key = sys.argv[1:9]
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.jars", jar)
        .config("spark.driver.userClassPathFirst", "true")
        .config("spark.executor.userClassPathFirst", "true")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    keys = {"awsAccessKey": access_key, "awsSecretKey": secret_key} if access_key else {}
    where = {"endpoint": endpoint, "region": region, **keys}
    query = (
        spark.readStream.format("kinesis")
        .options(streamName=source, initialPosition="trim_horizon", **where)
        .load()
        .select("partitionKey", "data")
        .writeStream.format("kinesis")
        .options(streamName=target, **where)
        .option("checkpointLocation", checkpoint)
        .trigger(availableNow=True)
        .start()
    )
    ended = query.awaitTermination(120)
    error = query.exception()
    written = sum(int(p["sink"]["metrics"]["recordsWritten"]) for p in query.recentProgress[-1:])
    print("RESULT", json.dumps({"ended": ended, "error": str(error) if error else None, "written": written}))
    """
)


def test_with_user_classpath_first_class_loaders_reading_and_writing_work(
    kinesis: Kinesis, make_stream: Callable[[int], str], tmp_path: Path
) -> None:
    source, target = make_stream(2), make_stream(1)
    put(kinesis.client(), source, [(f"k{i}", f"r{i}".encode()) for i in range(30)])
    args = [str(connector_jar()), *kinesis.program_args(source, target, str(tmp_path / "checkpoint"))]
    ran = run_program(tmp_path, "user_classpath_first.py", USER_CLASSPATH_FIRST, args, timeout=300)
    results = [line for line in ran.stdout.splitlines() if line.startswith("RESULT ")]
    assert results, ran.stdout[-2000:] + ran.stderr[-4000:]
    result = json.loads(results[0][len("RESULT ") :])
    assert result == {"ended": True, "error": None, "written": 30}, ran.stderr[-4000:]


def test_real_time_mode_relays_records_on_every_line_that_has_it_and_is_refused_clearly_before(
    spark: SparkSession, kinesis: Kinesis, make_stream: Callable[[int], str], tmp_path: Path
) -> None:
    relay = Relay.of(spark, kinesis, make_stream, tmp_path / "checkpoint")
    if tuple(int(part) for part in pyspark.__version__.split(".")[:2]) < (4, 1):
        with pytest.raises(KinesisError, match=r"Real-time mode needs Spark 4\.1 or later"):
            real_time(relay.writer, "1 minute")
        return
    relay.relays_in_real_time(spark, kinesis, lambda writer: real_time(writer, "1 minute").start())
