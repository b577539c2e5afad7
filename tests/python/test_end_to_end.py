# SPDX-License-Identifier: Apache-2.0
"""End-to-end: a fresh PySpark session loads the built connector jar and reads what boto3 wrote.

The source only learns that records exist when its background prefetching finds them, so a test cannot ask
Spark to "process everything available": it polls the sink until what it expects has arrived or a deadline
has passed, and then asserts exactly what arrived.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from conftest import Kinesis
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql.streaming import StreamingQuery
from pyspark.sql.streaming.readwriter import DataStreamWriter

T = TypeVar("T")

TRIGGER = "1 second"


# ---- helpers ----


def put(client: Any, stream: str, records: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
    """Writes (partition key, data) records in order, 500 per call, retrying any Kinesis turned down.

    Returns Kinesis' answer for each record, in the order given: its ShardId and SequenceNumber.
    """
    answers: list[dict[str, Any]] = []
    for start in range(0, len(records), 500):
        chunk = records[start : start + 500]
        results: list[dict[str, Any] | None] = [None] * len(chunk)
        pending = list(range(len(chunk)))
        for _attempt in range(10):
            entries = [{"PartitionKey": chunk[i][0], "Data": chunk[i][1]} for i in pending]
            response = client.put_records(StreamName=stream, Records=entries)
            retry = []
            assert len(response["Records"]) == len(pending)
            for i, result in zip(pending, response["Records"]):
                if "SequenceNumber" in result:
                    results[i] = result
                else:
                    retry.append(i)
            pending = retry
            if not pending:
                break
            time.sleep(0.5)
        assert not pending, f"Kinesis kept turning down {len(pending)} records of {stream}"
        answers.extend(r for r in results if r is not None)
    return answers


def poll(
    what: str,
    probe: Callable[[], T],
    done: Callable[[T], bool],
    query: StreamingQuery | None = None,
    seconds: float = 60.0,
) -> T:
    """Calls `probe` until `done` holds for its answer or `seconds` have passed; returns the last answer.

    Fails at once if `query` fails meanwhile. The caller asserts on what this returns.
    """
    deadline = time.monotonic() + seconds
    while True:
        if query is not None and query.exception() is not None:
            pytest.fail(f"the query failed while waiting for {what}: {query.exception()}")
        value = probe()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.25)


class BatchCollector:
    """A foreachBatch sink that keeps each batch's rows by batch id; a batch run again replaces itself, as it
    would in an idempotent sink."""

    def __init__(self) -> None:
        self._batches: dict[int, list[Row]] = {}
        self._lock = threading.Lock()

    def _write(self, batch: DataFrame, batch_id: int) -> None:
        rows = batch.collect()
        with self._lock:
            self._batches[batch_id] = rows

    def start(self, df: DataFrame, checkpoint: Path) -> StreamingQuery:
        return (
            df.writeStream.option("checkpointLocation", str(checkpoint))
            .trigger(processingTime=TRIGGER)
            .foreachBatch(self._write)
            .start()
        )

    def batches(self) -> dict[int, list[Row]]:
        with self._lock:
            return dict(self._batches)

    def rows(self) -> list[Row]:
        batches = self.batches()
        return [row for batch_id in sorted(batches) for row in batches[batch_id]]


def read(spark: SparkSession, options: dict[str, str]) -> DataFrame:
    return spark.readStream.format("kinesis").options(**options).load()


RecordId = tuple[str, str]


def ids(rows: list[Row]) -> list[RecordId]:
    """Each row's (shardId, sequenceNumber), sorted: what identifies a Kinesis record."""
    return sorted((row["shardId"], row["sequenceNumber"]) for row in rows)


def written_ids(answers: list[dict[str, Any]]) -> list[RecordId]:
    return sorted((answer["ShardId"], answer["SequenceNumber"]) for answer in answers)


# ---- tests ----


def test_word_count_of_the_qubole_blog(
    spark: SparkSession, kinesis: Kinesis, make_stream: Callable[[int], str]
) -> None:
    stream = make_stream(2)
    lines = ["Kinesis Connector for", "Apache Spark", "Kinesis Spark Spark"]
    put(kinesis.client(), stream, [(f"line-{i}", line.encode()) for i, line in enumerate(lines)])

    counts = (
        read(spark, kinesis.options(stream, initialPosition="trim_horizon"))
        .selectExpr("explode(split(CAST(data AS STRING), ' ')) AS word")
        .groupBy("word")
        .count()
    )
    table = f"word_counts_{secrets.token_hex(4)}"
    query = (
        counts.writeStream.outputMode("complete")
        .format("memory")
        .queryName(table)
        .trigger(processingTime=TRIGGER)
        .start()
    )
    expected = {"Kinesis": 2, "Connector": 1, "for": 1, "Apache": 1, "Spark": 3}
    try:
        counted = poll(
            "the word counts",
            lambda: {row["word"]: row["count"] for row in spark.table(table).collect()},
            lambda counts: counts == expected,
            query,
        )
    finally:
        query.stop()
    assert counted == expected


@pytest.mark.line_smoke
def test_restart_from_checkpoint_reads_only_the_new_records_each_once(
    spark: SparkSession, kinesis: Kinesis, make_stream: Callable[[int], str], tmp_path: Path
) -> None:
    stream = make_stream(2)
    client = kinesis.client()
    checkpoint = tmp_path / "checkpoint"
    options = kinesis.options(stream, initialPosition="trim_horizon")

    first = put(client, stream, [(f"key-{i}", f"first-{i}".encode()) for i in range(300)])
    before = BatchCollector()
    query = before.start(read(spark, options), checkpoint)
    try:
        poll("the first 300 records", before.rows, lambda rows: len(rows) >= 300, query)
    finally:
        query.stop()
    assert ids(before.rows()) == written_ids(first)

    second = put(client, stream, [(f"key-{i}", f"second-{i}".encode()) for i in range(200)])
    after = BatchCollector()

    def delivered() -> dict[int, list[Row]]:
        """What an idempotent sink holds: a batch run again replaces its first run."""
        return {**before.batches(), **after.batches()}

    query = after.start(read(spark, options), checkpoint)
    try:
        poll(
            "all 500 records",
            delivered,
            lambda batches: sum(len(rows) for rows in batches.values()) >= 500,
            query,
        )
    finally:
        query.stop()

    first_run, second_run = before.batches(), after.batches()
    # A batch the first query wrote but had not yet committed when it stopped is run again on restart, under
    # the same id: it must hold exactly the same records. Every other batch of the second run is new.
    for batch_id in first_run.keys() & second_run.keys():
        assert ids(second_run[batch_id]) == ids(first_run[batch_id]), f"batch {batch_id} replayed differently"
    new_batches = [rows for batch_id, rows in second_run.items() if batch_id not in first_run]
    assert ids([row for rows in new_batches for row in rows]) == written_ids(second)
    everything = [row for rows in delivered().values() for row in rows]
    assert ids(everything) == written_ids(first + second)
    assert sorted(bytes(row["data"]) for row in everything) == sorted(
        [f"first-{i}".encode() for i in range(300)] + [f"second-{i}".encode() for i in range(200)]
    )


def test_columns_carry_what_was_written(
    spark: SparkSession, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    written = kinesis.client().put_record(StreamName=stream, Data=b"\x00\x01hello", PartitionKey="pk-1")
    df = read(spark, kinesis.options(stream, initialPosition="earliest"))
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        ("partitionKey", "string"),
        ("data", "binary"),
        ("stream", "string"),
        ("shardId", "string"),
        ("sequenceNumber", "string"),
        ("approximateArrivalTimestamp", "timestamp"),
    ]
    collector = BatchCollector()
    query = collector.start(df, tmp_path / "checkpoint")
    try:
        rows = poll("the record", collector.rows, lambda rows: len(rows) >= 1, query)
    finally:
        query.stop()

    assert len(rows) == 1, rows
    (row,) = rows
    assert row["partitionKey"] == "pk-1"
    assert bytes(row["data"]) == b"\x00\x01hello"
    assert row["stream"] == stream
    assert row["shardId"] == written["ShardId"]
    assert row["sequenceNumber"] == written["SequenceNumber"]
    arrived = row["approximateArrivalTimestamp"]
    assert isinstance(arrived, dt.datetime)
    # PySpark gives timestamps as naive local times.
    assert abs((arrived - dt.datetime.now()).total_seconds()) < 60, arrived


@pytest.mark.line_smoke
def test_sink_writes_what_the_source_reads_back(
    spark: SparkSession, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    # As the README's sink example: a key and a JSON payload per row, then an aggregated write.
    orders = spark.createDataFrame(
        [(i, f"customer-{i % 7}", i * 1.5) for i in range(300)], "order_id INT, customer STRING, total DOUBLE"
    )
    sink_options = kinesis.options(stream)
    (
        orders.selectExpr("CAST(order_id AS STRING) AS partitionKey", "to_json(struct(*)) AS data")
        .write.format("kinesis")
        .options(**sink_options)
        .mode("append")
        .save()
    )
    (
        orders.selectExpr("customer AS partitionKey", "CAST(order_id + 1000 AS STRING) AS data")
        .write.format("kinesis")
        .options(**sink_options)
        .option("kplAggregation", "true")
        .mode("append")
        .save()
    )

    collector = BatchCollector()
    query = collector.start(
        read(spark, kinesis.options(stream, initialPosition="trim_horizon")), tmp_path / "c"
    )
    try:
        rows = poll("600 rows", collector.rows, lambda rows: len(rows) >= 600, query)
    finally:
        query.stop()

    plain = sorted(
        (r["partitionKey"], bytes(r["data"]).decode()) for r in rows if bytes(r["data"]).startswith(b"{")
    )
    expected = sorted(
        (str(i), f'{{"order_id":{i},"customer":"customer-{i % 7}","total":{i * 1.5}}}') for i in range(300)
    )
    assert plain == expected
    aggregated = sorted(
        (r["partitionKey"], int(bytes(r["data"]))) for r in rows if not bytes(r["data"]).startswith(b"{")
    )
    assert aggregated == sorted((f"customer-{i % 7}", i + 1000) for i in range(300))


@pytest.mark.line_smoke
def test_consumer_manager_over_py4j_as_the_readme_shows_it(
    spark: SparkSession, kinesis: Kinesis, stream: str
) -> None:
    jvm = spark._jvm  # type: ignore[attr-defined]
    manager = jvm.io.github.sparkkinesis.api.KinesisConsumerManager.create(kinesis.options(None))
    try:
        arn = manager.registerConsumer(stream, "spark-kinesis_from-python")
        assert arn.startswith("arn:aws:kinesis:") and "spark-kinesis_from-python" in arn
        listed = DataFrame(manager.listConsumers(stream), spark).collect()
        assert [(r["consumerName"], r["consumerARN"], r["consumerStatus"]) for r in listed] == [
            ("spark-kinesis_from-python", arn, "ACTIVE")
        ]
        manager.deregisterConsumer(stream, "spark-kinesis_from-python")
        remaining = kinesis.client().list_stream_consumers(StreamARN=arn.split("/consumer/")[0])["Consumers"]
        assert all(c["ConsumerStatus"] == "DELETING" for c in remaining), remaining
    finally:
        manager.close()


def test_secrets_appear_nowhere_a_user_looks(
    spark: SparkSession, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    if kinesis.accepts_any_credentials:
        # Sentinels that cannot turn up by chance; the endpoint accepts them.
        secret_key = f"SECRET-KEY-SENTINEL-{secrets.token_hex(16)}"
        session_token: str | None = f"SESSION-TOKEN-SENTINEL-{secrets.token_hex(16)}"
        kinesis = dataclasses.replace(kinesis, secret_key=secret_key, session_token=session_token)
    elif kinesis.secret_key and len(kinesis.secret_key) >= 16:
        # A real endpoint: the real secrets must not show either.
        secret_key, session_token = kinesis.secret_key, kinesis.session_token
    else:
        pytest.skip("the endpoint checks credentials and no long enough secret key is configured to look for")
    hidden = {"the secret key": secret_key}
    if session_token:
        hidden["the session token"] = session_token

    put(kinesis.client(), stream, [("k", b"a"), ("k", b"b"), ("k", b"c")])
    df = read(spark, kinesis.options(stream, initialPosition="trim_horizon"))
    collector = BatchCollector()
    query = collector.start(df, tmp_path / "ok")
    try:
        poll(
            "3 rows and their progress",
            lambda: sum(progress.numInputRows for progress in query.recentProgress),
            lambda rows: rows >= 3,
            query,
        )
        running_plan = query._jsq.explainInternal(True)
    finally:
        query.stop()

    missing = f"e2e-missing-{secrets.token_hex(4)}"
    failing = collector.start(read(spark, kinesis.options(missing)), tmp_path / "failing")
    try:
        poll("the query on a missing stream to fail", failing.exception, lambda e: e is not None, seconds=120)
    finally:
        failing.stop()
    error = failing.exception()
    assert error is not None, f"a query reading the missing stream {missing} did not fail within 120 s"

    places = {
        "the plan (df.explain)": df._jdf.queryExecution().toString(),
        "the running query's plan (query.explain)": running_plan,
        "the progress (lastProgress/recentProgress)": "\n".join(
            [query.lastProgress.json, *(progress.json for progress in query.recentProgress)]
        ),
        "the error of the failing query": str(error),
        "the JVM stack trace of that error": str(getattr(error, "_stackTrace", "")),
    }
    # Checked before anything else, and never shown: a real secret must not reach the test report either.
    for what, value in hidden.items():
        shown_in = [where for where, text in places.items() if value in text]
        if shown_in:
            pytest.fail(f"{what} appears in: {', '.join(shown_in)}")

    assert stream in places["the progress (lastProgress/recentProgress)"]
    assert missing in str(error)
    assert kinesis.endpoint in str(error)


def test_records_aggregated_by_aws_aggregation_library_read_back_unchanged(
    spark: SparkSession, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    # AWS's own aggregation library (aws-kinesis-agg) packs user records as the KPL does; the source gives
    # back each user record of each aggregate as written, in its order, under the aggregate's sequence number.
    from aws_kinesis_agg.aggregator import RecordAggregator

    rng = random.Random(18)
    keys = ["a", "key-1", "ключ", "キー", "k" * 256] + [f"customer-{i}" for i in range(7)]
    aggregator = RecordAggregator(max_size=16 * 1024)
    aggregates: list[tuple[Any, list[tuple[str, bytes]]]] = []
    packed: list[tuple[str, bytes]] = []  # what the open aggregate holds
    for i in range(600):
        record = (rng.choice(keys), rng.randbytes(rng.choice([0, 1, 20, 200, 2000])))
        hash_key = str(rng.randrange(2**128)) if i % 5 == 0 else None
        full = aggregator.add_user_record(*record, hash_key)
        if full is not None:  # the record opened the next aggregate
            aggregates.append((full, packed))
            packed = []
        packed.append(record)
    aggregates.append((aggregator.clear_and_get(), packed))
    client = kinesis.client()
    written: dict[str, list[tuple[str, bytes]]] = {}
    for aggregate, records in aggregates:
        key, hash_key, data = aggregate.get_contents()
        extra = {"ExplicitHashKey": hash_key} if hash_key else {}
        answer = client.put_record(StreamName=stream, PartitionKey=key, Data=data, **extra)
        written[answer["SequenceNumber"]] = records
    assert len(written) > 3, "several aggregates"
    total = sum(len(records) for records in written.values())

    collector = BatchCollector()
    df = read(spark, kinesis.options(stream, initialPosition="trim_horizon"))
    query = collector.start(df, tmp_path / "checkpoint")
    try:
        rows = poll("every user record", collector.rows, lambda rows: len(rows) >= total, query)
    finally:
        query.stop()

    read_back: dict[str, list[tuple[str, bytes]]] = {}
    for row in rows:
        read_back.setdefault(row["sequenceNumber"], []).append((row["partitionKey"], bytes(row["data"])))
    assert read_back == written


def records_in(client: Any, stream: str) -> list[bytes]:
    """The data of every record of a one-shard stream, read with the plain API."""
    shard = client.list_shards(StreamName=stream)["Shards"][0]["ShardId"]
    iterator = client.get_shard_iterator(StreamName=stream, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    return [r["Data"] for r in client.get_records(ShardIterator=iterator["ShardIterator"])["Records"]]


@dataclasses.dataclass
class Relay:
    """A query's writer that relays a one-shard stream to another through the Kinesis sink, update mode."""

    source: str
    target: str
    writer: DataStreamWriter

    @staticmethod
    def of(
        spark: SparkSession, kinesis: Kinesis, make_stream: Callable[[int], str], checkpoint: Path
    ) -> Relay:
        source, target = make_stream(1), make_stream(1)
        writer = (
            read(spark, kinesis.options(source, initialPosition="trim_horizon"))
            .select("partitionKey", "data")
            .writeStream.format("kinesis")
            .options(**kinesis.options(target))
            .outputMode("update")
            # Spark 4.3 tracks a real-time query's progress asynchronously by default, for its own sinks only.
            .option("asyncProgressTrackingEnabled", "false")
            .option("checkpointLocation", str(checkpoint))
        )
        return Relay(source, target, writer)

    def relays_in_real_time(
        self, spark: SparkSession, kinesis: Kinesis, start: Callable[[DataStreamWriter], StreamingQuery]
    ) -> None:
        """Puts 10 records and starts the query with ``start``: each reaches the target in batch one."""
        client = kinesis.client()
        values = [f"relayed-{i}".encode() for i in range(10)]
        put(client, self.source, [(f"key-{i}", value) for i, value in enumerate(values)])
        # Spark checks real-time sinks against a list of its own, which this one is not on.
        spark.conf.set("spark.sql.streaming.realTimeMode.allowlistCheck", "false")
        try:
            query = start(self.writer)
            try:
                found = poll(
                    "the 10 records in the target stream",
                    lambda: records_in(client, self.target),
                    lambda rows: len(rows) >= 10,
                    query,
                )
                assert query.recentProgress == [], "every record was relayed while the first batch ran"
            finally:
                query.stop()
        finally:
            spark.conf.unset("spark.sql.streaming.realTimeMode.allowlistCheck")
        assert sorted(found) == sorted(values)


def test_real_time_mode_relays_each_record_from_kinesis_to_kinesis_as_the_readme_shows_it(
    spark: SparkSession, kinesis: Kinesis, make_stream: Callable[[int], str], tmp_path: Path
) -> None:
    # trigger(realTime=...) is PySpark's from 4.2; the full end-to-end suite runs on the newest line.
    relay = Relay.of(spark, kinesis, make_stream, tmp_path / "checkpoint")
    relay.relays_in_real_time(spark, kinesis, lambda writer: writer.trigger(realTime="1 minute").start())
