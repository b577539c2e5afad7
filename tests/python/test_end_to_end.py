"""End-to-end: a fresh PySpark session loads the built connector jar and reads what boto3 wrote."""

from __future__ import annotations

import datetime as dt
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from conftest import Kinesis
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import StreamingQuery


def put(
    client: Any, stream: str, values: list[bytes], key: Callable[[int], str] = str
) -> list[dict[str, Any]]:
    """Writes values in order, 500 per call; returns Kinesis' answer for each."""
    answers: list[dict[str, Any]] = []
    for start in range(0, len(values), 500):
        chunk = values[start : start + 500]
        records = [{"Data": v, "PartitionKey": key(start + i)} for i, v in enumerate(chunk)]
        response = client.put_records(StreamName=stream, Records=records)
        assert response["FailedRecordCount"] == 0, response
        answers.extend(response["Records"])
    return answers


def wait_until(
    what: str, done: Callable[[], bool], query: StreamingQuery | None = None, seconds: float = 90
) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if query is not None and query.exception() is not None:
            raise AssertionError(f"the query failed while waiting for {what}: {query.exception()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds}s waiting for {what}")
        time.sleep(0.2)


class BatchCollector:
    """An idempotent sink: each batch's rows, replaced if Spark writes the batch again."""

    def __init__(self) -> None:
        self.batches: dict[int, list[Any]] = {}
        self._lock = threading.Lock()

    def _write(self, batch: DataFrame, batch_id: int) -> None:
        rows = batch.collect()
        with self._lock:
            self.batches[batch_id] = rows

    def start(self, df: DataFrame, checkpoint: str) -> StreamingQuery:
        return df.writeStream.option("checkpointLocation", checkpoint).foreachBatch(self._write).start()

    def rows(self) -> list[Any]:
        with self._lock:
            return [row for batch_id in sorted(self.batches) for row in self.batches[batch_id]]


def read(spark: SparkSession, options: dict[str, str]) -> DataFrame:
    return spark.readStream.format("kinesis").options(**options).load()


def test_word_count_of_what_boto3_wrote(spark: SparkSession, kinesis: Kinesis, new_stream: Any) -> None:
    stream = new_stream(shards=2)
    words = ["Kinesis", "Connector", "for", "Apache", "Spark", "Kinesis", "Spark", "Spark"]
    put(kinesis.client(), stream, [w.encode() for w in words])

    counts = (
        read(spark, kinesis.options(stream, initialPosition="trim_horizon"))
        .selectExpr("CAST(data AS STRING) AS word")
        .groupBy("word")
        .count()
    )
    name = f"word_count_{uuid.uuid4().hex[:8]}"
    query = counts.writeStream.outputMode("complete").format("memory").queryName(name).start()
    try:

        def counted() -> dict[str, int]:
            return {r["word"]: r["count"] for r in spark.sql(f"SELECT * FROM {name}").collect()}

        wait_until("every word counted", lambda: sum(counted().values()) >= len(words), query)
        assert counted() == {"Kinesis": 2, "Connector": 1, "for": 1, "Apache": 1, "Spark": 3}
    finally:
        query.stop()


def test_columns_carry_what_was_written(spark: SparkSession, kinesis: Kinesis, new_stream: Any) -> None:
    stream = new_stream(shards=1)
    client = kinesis.client()
    written = client.put_record(StreamName=stream, Data=b"\x00\x01hello", PartitionKey="pk-1")
    collector = BatchCollector()
    query = collector.start(
        read(spark, kinesis.options(stream, initialPosition="earliest")), tempfile.mkdtemp()
    )
    try:
        wait_until("the record", lambda: len(collector.rows()) >= 1, query)
    finally:
        query.stop()
    (row,) = collector.rows()
    assert row["partitionKey"] == "pk-1"
    assert bytes(row["data"]) == b"\x00\x01hello"
    assert row["stream"] == stream
    assert row["shardId"] == written["ShardId"]
    assert row["sequenceNumber"] == written["SequenceNumber"]
    arrived = row["approximateArrivalTimestamp"]
    assert isinstance(arrived, dt.datetime)
    assert abs((arrived - dt.datetime.now()).total_seconds()) < 60


def test_restart_from_checkpoint_loses_and_repeats_nothing(
    spark: SparkSession, kinesis: Kinesis, new_stream: Any
) -> None:
    stream = new_stream(shards=2)
    client = kinesis.client()
    checkpoint = tempfile.mkdtemp()
    options = kinesis.options(stream, initialPosition="trim_horizon")

    first = put(client, stream, [f"first-{i}".encode() for i in range(300)])
    before = BatchCollector()
    query = before.start(read(spark, options), checkpoint)
    try:
        wait_until("the first 300 records", lambda: len(before.rows()) >= 300, query)
    finally:
        query.stop()

    second = put(client, stream, [f"second-{i}".encode() for i in range(200)])
    after = BatchCollector()

    def delivered() -> dict[int, list[Any]]:
        """What an idempotent sink holds: a batch written again replaces its first writing."""
        return {**before.batches, **after.batches}

    query = after.start(read(spark, options), checkpoint)
    try:
        wait_until("all 500 records", lambda: sum(len(rows) for rows in delivered().values()) >= 500, query)
    finally:
        query.stop()

    def ids(rows: list[Any]) -> list[tuple[str, str]]:
        return sorted((r["shardId"], r["sequenceNumber"]) for r in rows)

    # A batch that was written but not yet committed when the first query stopped is run again on restart,
    # under the same id: it must hold exactly the same records.
    for batch_id in before.batches.keys() & after.batches.keys():
        assert ids(after.batches[batch_id]) == ids(before.batches[batch_id]), (
            f"batch {batch_id} replayed differently"
        )
    everything = [row for rows in delivered().values() for row in rows]
    assert ids(everything) == sorted((a["ShardId"], a["SequenceNumber"]) for a in first + second)
    assert ids(before.rows()) == sorted((a["ShardId"], a["SequenceNumber"]) for a in first)


def test_bad_options_fail_at_load_naming_the_option(spark: SparkSession, kinesis: Kinesis) -> None:
    with pytest.raises(Exception) as bad_position:
        read(spark, kinesis.options("s", initialPosition="yesterday"))
    assert "initialPosition" in str(bad_position.value)
    assert "yesterday" in str(bad_position.value)

    options = kinesis.options("s")
    del options["streamName"]
    with pytest.raises(Exception) as missing:
        read(spark, options)
    assert "streamName" in str(missing.value)


def test_secrets_appear_nowhere_a_user_looks(spark: SparkSession, kinesis: Kinesis, new_stream: Any) -> None:
    if not kinesis.credentials:
        pytest.skip("needs the emulator, which accepts any secret key")
    secret = f"SECRET-SENTINEL-{uuid.uuid4().hex}"
    stream = new_stream(shards=1)
    put(kinesis.client(), stream, [b"a", b"b", b"c"])
    options = kinesis.options(stream, initialPosition="trim_horizon", awsSecretKey=secret)
    df = read(spark, options)
    collector = BatchCollector()
    query = collector.start(df, tempfile.mkdtemp())
    try:
        wait_until(
            "3 rows and their progress",
            lambda: sum(p["numInputRows"] for p in query.recentProgress) >= 3,
            query,
        )
    finally:
        query.stop()

    failing = collector.start(read(spark, {**options, "streamName": "no-such-stream"}), tempfile.mkdtemp())
    wait_until("the query on a missing stream to fail", lambda: failing.exception() is not None)
    error = str(failing.exception())
    assert "no-such-stream" in error
    assert kinesis.endpoint in error

    places = {
        "the plan": df._jdf.queryExecution().toString(),
        "the progress": "\n".join(p.json for p in query.recentProgress),
        "the error": error,
    }
    assert f"KinesisV2[{stream}]" in places["the progress"]
    for where, text in places.items():
        assert secret not in text, f"the secret key appears in {where}"
