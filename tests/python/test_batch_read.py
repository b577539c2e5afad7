# SPDX-License-Identifier: Apache-2.0
"""End-to-end: batch reads (``spark.read.format("kinesis")``) in a fresh PySpark session with the built
connector jar, of records boto3 wrote, with the options :class:`KinesisBatchReadOptions` builds: a whole
stream, a time window, the range a streaming query read and what came after it, a SQL view, and what a
batch read refuses at ``.load()``.

A batch read is planned when an action runs it, up to what Kinesis holds then: unlike a streaming test, a
test here asserts on what one ``collect()`` returns, without polling.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Kinesis
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark_kinesis import (
    ConsumerMode,
    EndPosition,
    InitialPosition,
    KinesisBatchReadOptions,
    KinesisOptionError,
    KinesisSourceOptions,
)
from test_end_to_end import BatchCollector, ids, poll, put, read, written_ids
from test_options import BY_ARN_SOURCE_OPTION, EVERY_SOURCE_OPTION, STREAMING_ONLY_OPTIONS

PDT = dt.timezone(dt.timedelta(hours=-7))

Records = dict[tuple[str, str, str], tuple[str, bytes]]  # (stream, shardId, sequenceNumber): key, data


# ---- helpers ----


def where(kinesis: Kinesis) -> dict[str, Any]:
    """The builder fields that reach the tests' Kinesis: its endpoint, region and credentials."""
    return {
        "endpoint": kinesis.endpoint,
        "region": kinesis.region,
        "aws_access_key": kinesis.access_key,
        "aws_secret_key": kinesis.secret_key if kinesis.access_key else None,
        "aws_session_token": kinesis.session_token or None,
    }


def batch_read(spark: SparkSession, kinesis: Kinesis, streams: str | list[str], **fields: Any) -> DataFrame:
    """A batch read of `streams` at the tests' Kinesis, its options built by KinesisBatchReadOptions."""
    options = KinesisBatchReadOptions(stream_names=streams, **where(kinesis), **fields)
    return spark.read.format("kinesis").options(**options.to_options()).load()


def records(rows: list[Row]) -> Records:
    """Each row's partition key and data by what identifies it: its stream, shardId and sequenceNumber."""
    found = {
        (r["stream"], r["shardId"], r["sequenceNumber"]): (r["partitionKey"], bytes(r["data"])) for r in rows
    }
    assert len(found) == len(rows), "a record read twice"
    return found


def written(stream: str, sent: list[tuple[str, bytes]], answers: list[dict[str, Any]]) -> Records:
    """What `put` wrote to `stream` (its records, and Kinesis' answers), as `records` gives rows."""
    return {(stream, a["ShardId"], a["SequenceNumber"]): record for a, record in zip(answers, sent)}


def utc_now_between_puts() -> dt.datetime:
    """An instant a second clear of the records put before and after it (the emulator stamps arrivals with
    this machine's clock)."""
    time.sleep(1.0)
    now = dt.datetime.now(dt.timezone.utc)
    time.sleep(1.0)
    return now


def refused_at_load(load: Callable[[], DataFrame]) -> KinesisOptionError:
    """The error `load` raises; it must raise one, on one line."""
    with pytest.raises(KinesisOptionError) as refused:
        load()
    assert "\n" not in str(refused.value), "one line, no Py4J trace"
    return refused.value


# ---- reading ----


@pytest.mark.line_smoke
def test_a_batch_read_returns_every_record_of_its_streams_with_its_columns(
    spark: SparkSession, kinesis: Kinesis, make_stream: Callable[[int], str]
) -> None:
    client = kinesis.client()
    orders, clicks = make_stream(2), make_stream(1)
    sent_orders = [(f"order-{i}", f"order {i}".encode()) for i in range(120)]
    sent_clicks = [(f"click-{i % 3}", bytes([i, 0, 255])) for i in range(30)]
    expected = {
        **written(orders, sent_orders, put(client, orders, sent_orders)),
        **written(clicks, sent_clicks, put(client, clicks, sent_clicks)),
    }

    # No initial_position: a batch read starts at trim_horizon; no end_position: it ends at latest.
    df = batch_read(spark, kinesis, [orders, clicks])
    assert df.schema == read(spark, kinesis.options(orders)).schema, "a stream's rows"
    rows = df.collect()

    assert records(rows) == expected
    assert {r["shardId"] for r in rows if r["stream"] == orders} == {
        s["ShardId"] for s in client.list_shards(StreamName=orders)["Shards"]
    }
    assert all(isinstance(r["approximateArrivalTimestamp"], dt.datetime) for r in rows)


def test_a_time_window_reads_the_records_that_arrived_within_it(
    spark: SparkSession, kinesis: Kinesis, make_stream: Callable[[int], str]
) -> None:
    client = kinesis.client()
    stream = make_stream(2)
    before = put(client, stream, [(f"k{i}", f"before-{i}".encode()) for i in range(40)])
    start = utc_now_between_puts()
    within = put(client, stream, [(f"k{i}", f"within-{i}".encode()) for i in range(40)])
    end = utc_now_between_puts()
    after = put(client, stream, [(f"k{i}", f"after-{i}".encode()) for i in range(40)])

    # From an instant (inclusive) to an instant (exclusive), in any time zone.
    window = batch_read(spark, kinesis, stream, initial_position=start, end_position=end.astimezone(PDT))
    assert ids(window.collect()) == written_ids(within)
    assert ids(batch_read(spark, kinesis, stream, end_position=start).collect()) == written_ids(before)
    from_end = batch_read(spark, kinesis, stream, initial_position=end, end_position=EndPosition.LATEST)
    assert ids(from_end.collect()) == written_ids(after)
    empty = batch_read(spark, kinesis, stream, initial_position=end, end_position=end)
    assert empty.collect() == []


def test_a_streaming_querys_end_offset_bounds_a_batch_read_exactly_and_starts_what_came_after(
    spark: SparkSession, kinesis: Kinesis, make_stream: Callable[[int], str], tmp_path: Path
) -> None:
    client = kinesis.client()
    stream = make_stream(2)
    first = put(client, stream, [(f"key-{i}", f"first-{i}".encode()) for i in range(150)])

    streamed = BatchCollector()
    query = streamed.start(
        read(spark, kinesis.options(stream, initialPosition="trim_horizon")), tmp_path / "c"
    )
    try:
        poll(
            "the 150 records and the progress of the batches that read them",
            lambda: (len(streamed.rows()), sum(p["numInputRows"] for p in query.recentProgress)),
            lambda counts: counts[0] >= 150 and counts[1] >= 150,
            query,
        )
    finally:
        query.stop()
    # JSON text on PySpark 4 (a SourceProgress's endOffset), a dict on 3.5 (its progress is a parsed dict).
    end_offset = query.lastProgress["sources"][0]["endOffset"]
    assert ids(streamed.rows()) == written_ids(first)
    second = put(client, stream, [(f"key-{i}", f"second-{i}".encode()) for i in range(100)])

    # Up to and including the offset's positions: exactly what the streaming query returned.
    upto = batch_read(spark, kinesis, stream, end_position=end_offset).collect()
    assert records(upto) == records(streamed.rows())
    # After them: exactly what came after, whether to latest or to the records' end.
    assert ids(batch_read(spark, kinesis, stream, initial_position=end_offset).collect()) == written_ids(
        second
    )
    everything = batch_read(spark, kinesis, stream, initial_position=InitialPosition.TRIM_HORIZON).collect()
    assert ids(everything) == written_ids(first + second)

    # A streaming query started after the offset (KinesisSourceOptions) reads the same records.
    after = KinesisSourceOptions(stream_names=stream, **where(kinesis), initial_position=end_offset)
    resumed = BatchCollector()
    query = resumed.start(read(spark, after.to_options()), tmp_path / "resumed")
    try:
        poll("the 100 records after the offset", resumed.rows, lambda rows: len(rows) >= 100, query)
    finally:
        query.stop()
    assert ids(resumed.rows()) == written_ids(second)


def test_a_sql_view_using_kinesis_reads_the_streams_anew_at_each_query(
    spark: SparkSession, kinesis: Kinesis, stream: str
) -> None:
    client = kinesis.client()
    sent = [(f"key-{i}", f"value-{i}".encode()) for i in range(20)]
    expected = written(stream, sent, put(client, stream, sent))
    options = KinesisBatchReadOptions(stream_names=stream, **where(kinesis)).to_options()
    quoted = ", ".join(f"{key} '{value.replace(chr(92), chr(92) * 2)}'" for key, value in options.items())
    assert "'" not in "".join(options.values())
    view = f"kinesis_{secrets.token_hex(4)}"
    spark.sql(f"CREATE TEMPORARY VIEW {view} USING kinesis OPTIONS ({quoted})")
    try:
        rows = spark.sql(f"SELECT * FROM {view}").collect()
        assert records(rows) == expected
        keyed = spark.sql(f"SELECT CAST(data AS STRING) AS value FROM {view} WHERE partitionKey = 'key-7'")
        assert [r["value"] for r in keyed.collect()] == ["value-7"]

        # endPosition latest is where Kinesis is when a query runs: a later query sees what came since.
        more = [(f"key-{i}", f"value-{i}".encode()) for i in range(20, 25)]
        expected.update(written(stream, more, put(client, stream, more)))
        assert records(spark.sql(f"SELECT * FROM {view}").collect()) == expected
    finally:
        spark.catalog.dropTempView(view)


# ---- what a batch read refuses, at .load() ----


@pytest.mark.parametrize("key", [*sorted(STREAMING_ONLY_OPTIONS), "maxrecordspertrigger"])
def test_a_streaming_only_option_in_a_batch_read_is_refused_at_load_naming_it(
    spark: SparkSession, kinesis: Kinesis, key: str
) -> None:
    # Keys are case-insensitive: the error names the option as the documentation spells it.
    option = next(k for k in STREAMING_ONLY_OPTIONS if k.lower() == key.lower())
    options = kinesis.options("s", **{key: {**EVERY_SOURCE_OPTION, **BY_ARN_SOURCE_OPTION}[option]})
    error = refused_at_load(lambda: spark.read.format("kinesis").options(**options).load())
    assert error.condition == "KINESIS_OPTION_NOT_IN_BATCH_READ"
    assert error.sql_state == "42616" and error.getMessageParameters()["key"] == option
    assert str(error).startswith(
        f"[KINESIS_OPTION_NOT_IN_BATCH_READ] Option '{option}' does not apply to a batch read (spark.read): "
    ), error
    assert str(error).endswith("Remove it, or read with spark.readStream."), error


def test_end_position_on_a_streaming_read_is_refused_at_load(spark: SparkSession, kinesis: Kinesis) -> None:
    for value in ("latest", '{"at_timestamp": "2020-06-25T17:23:45Z"}'):
        error = refused_at_load(lambda value=value: read(spark, kinesis.options("s", endPosition=value)))
        assert error.condition == "KINESIS_OPTION_BATCH_READ_ONLY"
        assert str(error).startswith(
            "[KINESIS_OPTION_BATCH_READ_ONLY] Option 'endPosition' applies only to a batch read "
            "(spark.read): "
        ), error
        assert "Trigger.AvailableNow" in str(error), error


def test_an_end_before_the_start_is_refused_at_load_naming_end_position(
    spark: SparkSession, kinesis: Kinesis
) -> None:
    def offset(seq: str) -> str:
        position = {"shardId-000000000000": {"kind": "after", "seq": seq}}
        return json.dumps({"v": 2, "streams": {"s": {"shards": position}}})

    ranges = [
        ('{"at_timestamp": "2020-06-25T17:23:45Z"}', '{"at_timestamp": "2020-06-25T17:23:44.999Z"}'),
        ('{"at_timestamp": "06/25/2020 10:23:45 PDT"}', '{"at_timestamp": "2020-06-25T17:00:00Z"}'),
        (
            offset("49590338271490256608559692538361571095921575989136588898"),
            offset("4959033827149025660855969"),
        ),
    ]
    for start, end in ranges:
        options = kinesis.options("s", initialPosition=start, endPosition=end)
        error = refused_at_load(
            lambda options=options: spark.read.format("kinesis").options(**options).load()
        )
        assert error.condition == "KINESIS_OPTION_INVALID", error
        assert str(error).startswith("[KINESIS_OPTION_INVALID] Option 'endPosition' has an invalid value "), (
            error
        )
        assert "the read would end before it starts" in str(error), error
    # An end where the read starts is an empty range, not an error.
    same = kinesis.options("s", initialPosition=offset("12"), endPosition=offset("12"))
    spark.read.format("kinesis").options(**same).load()


def test_enhanced_fan_out_is_refused_in_a_batch_read(spark: SparkSession, kinesis: Kinesis) -> None:
    options = kinesis.options("s", consumerMode="efo")
    error = refused_at_load(lambda: spark.read.format("kinesis").options(**options).load())
    assert error.condition == "KINESIS_OPTION_NOT_IN_BATCH_READ"
    assert str(error).startswith(
        "[KINESIS_OPTION_NOT_IN_BATCH_READ] Option 'consumerMode' does not apply to a batch read "
        "(spark.read): "
    ), error
    # The builder refuses it before the JVM is asked, under the JVM's condition and with its parameters;
    # polling, the default, is taken.
    with pytest.raises(
        KinesisOptionError,
        match=r"^\[KINESIS_OPTION_NOT_IN_BATCH_READ\] consumer_mode \(option consumerMode\) is "
        r"<ConsumerMode.EFO",
    ) as built:
        KinesisBatchReadOptions(stream_names="s", **where(kinesis), consumer_mode=ConsumerMode.EFO)
    assert built.value.getMessageParameters() == error.getMessageParameters()
    batch_read(spark, kinesis, "s", consumer_mode=ConsumerMode.POLLING)
