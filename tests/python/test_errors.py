# SPDX-License-Identifier: Apache-2.0
"""What a user sees when something is wrong: errors at ``load()`` and ``save()`` as the connector's Python
classes with one-line messages, the save modes a batch write takes, and a failed query's cause. The Spark
tests run on every line (``line_smoke``): how Spark hands these to the connector differs between lines.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import ROOT, Kinesis
from pyspark.errors import StreamingQueryException
from pyspark.sql import SparkSession
from pyspark_kinesis import (
    KinesisCheckpointError,
    KinesisError,
    KinesisOptionError,
    KinesisStreamNotFoundError,
    KinesisWriteError,
    kinesis_cause,
)
from pyspark_kinesis.errors import _BY_CONDITION, error_class
from test_end_to_end import BatchCollector, poll, put, read

CONDITIONS = ROOT / "connector-jvm" / "src" / "main" / "resources" / "error" / "kinesis-error-conditions.json"


def test_every_jvm_condition_has_its_python_class_and_no_other() -> None:
    declared = json.loads(CONDITIONS.read_text())
    assert set(_BY_CONDITION) == set(declared)
    assert error_class("KINESIS_STREAM_NOT_FOUND.WRITE") is KinesisStreamNotFoundError
    assert error_class("KINESIS_BAD_RECORD") is KinesisWriteError
    assert error_class("SOMETHING_ELSE") is KinesisError
    assert issubclass(KinesisOptionError, ValueError)


@pytest.mark.line_smoke
def test_load_refuses_a_missing_stream_a_typo_and_a_bad_value_at_once(
    spark: SparkSession, kinesis: Kinesis
) -> None:
    with pytest.raises(KinesisOptionError) as missing:
        read(spark, kinesis.options(None))
    assert str(missing.value).startswith("[KINESIS_OPTION_MISSING] Option 'streamName' is required.")
    assert missing.value.getCondition() == "KINESIS_OPTION_MISSING" and missing.value.sql_state == "42616"
    assert missing.value.java_exception is not None
    assert "\n" not in str(missing.value), "one line, no Py4J trace"

    with pytest.raises(KinesisOptionError) as typo:
        read(spark, kinesis.options("s", intialPosition="trim_horizon"))
    assert "has no option 'intialPosition'; did you mean 'initialPosition'?" in str(typo.value)

    with pytest.raises(KinesisOptionError) as bad:
        read(spark, kinesis.options("s", initialPosition="yesterday"))
    assert bad.value.condition == "KINESIS_OPTION_INVALID"
    assert "initialPosition" in str(bad.value) and "yesterday" in str(bad.value)

    # Keys that are no option of the connector and no likely typo of one are ignored, as Spark's sources do.
    read(spark, kinesis.options("s", someOtherOption="1"))


@pytest.mark.line_smoke
def test_batch_writes_take_the_default_mode_and_append_and_refuse_overwrite_and_ignore(
    spark: SparkSession, kinesis: Kinesis, stream: str
) -> None:
    rows = spark.createDataFrame([(f"k{i}", f"v{i}") for i in range(3)], "partitionKey STRING, data STRING")
    rows.write.format("kinesis").options(**kinesis.options(stream)).save()
    rows.write.format("kinesis").options(**kinesis.options(stream)).mode("append").save()
    for mode in ("overwrite", "ignore"):
        with pytest.raises(KinesisOptionError) as refused:
            rows.write.format("kinesis").options(**kinesis.options(stream)).mode(mode).save()
        assert refused.value.condition == "KINESIS_SAVE_MODE_UNSUPPORTED"
        assert str(refused.value).startswith(
            f"[KINESIS_SAVE_MODE_UNSUPPORTED] Save mode {mode.capitalize()} is not supported"
        )

    client = kinesis.client()
    shard = client.list_shards(StreamName=stream)["Shards"][0]["ShardId"]
    iterator = client.get_shard_iterator(StreamName=stream, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    written = client.get_records(ShardIterator=iterator["ShardIterator"], Limit=100)["Records"]
    assert sorted(r["Data"].decode() for r in written) == sorted([f"v{i}" for i in range(3)] * 2)


@pytest.mark.line_smoke
def test_a_write_that_cannot_succeed_fails_at_once_as_one_typed_error_naming_the_row(
    spark: SparkSession, kinesis: Kinesis
) -> None:
    rows = spark.createDataFrame([("k1", "v1")], "partitionKey STRING, data STRING").repartition(1)
    started = time.monotonic()
    with pytest.raises(KinesisStreamNotFoundError) as missing:
        rows.write.format("kinesis").options(**kinesis.options("no-such-stream")).save()
    assert time.monotonic() - started < 60, "not retried for writeRetryTimeout"
    message = str(missing.value)
    assert message.startswith("[KINESIS_STREAM_NOT_FOUND.WRITE] Stream 'no-such-stream' was not found"), (
        message
    )
    assert "at row 1 of partition 0" in message and "partitionKey 'k1'" in message, message
    assert "\n" not in message, "one line, no Py4J trace"


def _read_one_record_then_stop(spark: SparkSession, kinesis: Kinesis, stream: str, checkpoint: Path) -> None:
    """Puts one record and runs a query until it has read it, leaving its checkpoint behind."""
    put(kinesis.client(), stream, [("k", b"x")])
    collector = BatchCollector()
    query = collector.start(read(spark, kinesis.options(stream, initialPosition="trim_horizon")), checkpoint)
    poll("the record", collector.rows, lambda rows: len(rows) >= 1, query)
    query.stop()


def _restart_fails(spark: SparkSession, kinesis: Kinesis, stream: str, checkpoint: Path) -> BaseException:
    """The failure of the query restarted from `checkpoint`."""
    restarted = BatchCollector().start(read(spark, kinesis.options(stream)), checkpoint)
    with pytest.raises(StreamingQueryException) as failed:
        restarted.awaitTermination(120)
    return failed.value


@pytest.mark.line_smoke
def test_a_failed_query_carries_the_connectors_error_inside(
    spark: SparkSession, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    _read_one_record_then_stop(spark, kinesis, stream, tmp_path / "c")
    kinesis.client().delete_stream(StreamName=stream, EnforceConsumerDeletion=True)
    poll("the stream gone", lambda: kinesis.client().list_streams()["StreamNames"], lambda n: stream not in n)

    failure = _restart_fails(spark, kinesis, stream, tmp_path / "c")
    cause = kinesis_cause(failure)
    assert isinstance(cause, KinesisStreamNotFoundError), failure
    assert cause.getCondition() == "KINESIS_STREAM_NOT_FOUND"
    assert f"Stream '{stream}' was not found" in str(cause)


def test_a_failed_querys_error_on_a_connect_client_carries_the_connectors_condition_and_message() -> None:
    # What a Spark Connect client raises for a failed query: the server sends the cause as text, after the
    # query's own condition, ended by the query's description (query.exception()) or its SQLSTATE
    # (awaitTermination()).
    text = (
        "[STREAM_FAILED] Query [id = 3a67, runId = 600e] terminated with exception: "
        "[KINESIS_STREAM_NOT_FOUND] Stream 'orders' was not found at http://127.0.0.1:4567 (region "
        "us-east-1). "
        "Check the options 'streamName', 'region' and 'endpoint', and that the stream exists."
    )
    for failure in (
        Exception(f"{text} SQLSTATE: XXKST\n=== Streaming Query ===\nIdentifier: t"),
        Exception(f"(STREAM_FAILED) {text}\n=== Streaming Query ===\nIdentifier: t"),
    ):
        cause = kinesis_cause(failure)
        assert isinstance(cause, KinesisStreamNotFoundError), failure
        assert cause.getCondition() == "KINESIS_STREAM_NOT_FOUND"
        assert str(cause) == (
            "[KINESIS_STREAM_NOT_FOUND] Stream 'orders' was not found at http://127.0.0.1:4567 (region "
            "us-east-1). Check the options 'streamName', 'region' and 'endpoint', and that the stream exists."
        )
    assert kinesis_cause(Exception("[STREAM_FAILED] terminated with exception: [DIVIDE_BY_ZERO] ...")) is None


@pytest.mark.line_smoke
def test_an_offsets_file_that_is_not_text_is_named_where_spark_lets_the_source_check(
    spark: SparkSession, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    checkpoint = tmp_path / "c"
    _read_one_record_then_stop(spark, kinesis, stream, checkpoint)
    newest = max(
        (f for f in (checkpoint / "offsets").iterdir() if f.name.isdigit()), key=lambda f: int(f.name)
    )
    newest.write_bytes(b"\xff\xfe\x00\x07")

    failure = _restart_fails(spark, kinesis, stream, checkpoint)
    cause = kinesis_cause(failure)
    major, minor = (int(n) for n in spark.version.split(".")[:2])
    if (major, minor) < (4, 2):
        assert isinstance(cause, KinesisCheckpointError), failure
        assert cause.condition == "KINESIS_CHECKPOINT_UNREADABLE"
        assert f"offsets/{newest.name} of the query's checkpoint" in str(cause)
        assert "it is not UTF-8 text (4 bytes)" in str(cause)
    else:
        # Spark 4.2 and later read the offset log before they create the query's sources: the source is
        # never asked, and the error is Spark's own.
        assert cause is None
        assert "Input length = 1" in str(failure)
