# SPDX-License-Identifier: Apache-2.0
"""What a user sees when something is wrong: errors at ``load()`` and ``save()`` as PySpark exceptions that
are also the connector's Python classes, with one-line messages; the save modes a batch write takes; a failed
query's cause. The Spark tests run on every line (``line_smoke``): how Spark and PySpark hand these over
differs between lines.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import ROOT, Kinesis
from pyspark.errors import IllegalArgumentException, PySparkException, StreamingQueryException
from pyspark.errors.exceptions import captured
from pyspark.sql import SparkSession
from pyspark_kinesis import (
    KinesisCheckpointError,
    KinesisError,
    KinesisOptionError,
    KinesisStreamNotFoundError,
    KinesisWriteError,
    kinesis_cause,
)
from pyspark_kinesis.errors import _BY_CONDITION, error_class, install_exception_conversion
from test_end_to_end import BatchCollector, poll, put, read

CONDITIONS = ROOT / "connector-jvm" / "src" / "main" / "resources" / "error" / "kinesis-error-conditions.json"


def test_every_jvm_condition_has_its_python_class_and_no_other() -> None:
    declared = json.loads(CONDITIONS.read_text())
    assert set(_BY_CONDITION) == set(declared)
    assert error_class("KINESIS_STREAM_NOT_FOUND.WRITE") is KinesisStreamNotFoundError
    assert error_class("KINESIS_BAD_RECORD") is KinesisWriteError
    assert error_class("SOMETHING_ELSE") is KinesisError
    assert issubclass(KinesisOptionError, ValueError) and issubclass(
        KinesisOptionError, IllegalArgumentException
    )
    assert issubclass(KinesisError, PySparkException)


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
    # PySpark's own exception for a JVM IllegalArgumentException, as code that knows nothing of the
    # connector catches it, with Spark's accessors.
    assert isinstance(missing.value, captured.IllegalArgumentException)
    assert isinstance(missing.value, IllegalArgumentException) and isinstance(missing.value, PySparkException)
    assert missing.value.getMessageParameters()["key"] == "streamName"
    assert missing.value.getSqlState() == "42616"
    assert type(missing.value).__name__ == "KinesisOptionError"

    with pytest.raises(KinesisOptionError) as typo:
        read(spark, kinesis.options("s", intialPosition="trim_horizon"))
    assert "has no option 'intialPosition'; did you mean 'initialPosition'?" in str(typo.value)

    with pytest.raises(KinesisOptionError) as bad:
        read(spark, kinesis.options("s", initialPosition="yesterday"))
    assert bad.value.condition == "KINESIS_OPTION_INVALID"
    assert "initialPosition" in str(bad.value) and "yesterday" in str(bad.value)

    # A Databricks service credential is refused rather than the query run with other credentials.
    with pytest.raises(KinesisOptionError) as databricks:
        read(spark, kinesis.options("s", serviceCredential="kinesis-reader"))
    assert databricks.value.getCondition() == "KINESIS_OPTION_DATABRICKS_ONLY"
    assert "roleArn" in str(databricks.value)

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
    # A JVM class PySpark has no class for: PySpark's CapturedException of the connector's exception.
    assert isinstance(missing.value, captured.CapturedException), type(missing.value).__mro__
    assert missing.value.getCondition() == "KINESIS_STREAM_NOT_FOUND.WRITE"
    assert missing.value.getMessageParameters()["stream"] == "no-such-stream"


@pytest.mark.line_smoke
def test_the_conversion_is_installed_once_and_calls_what_was_there_before(spark: SparkSession) -> None:
    installed = captured.convert_exception
    assert installed._kinesis_wrapped  # type: ignore[attr-defined]
    install_exception_conversion()
    assert captured.convert_exception is installed, "installing again wraps nothing more"

    # Another library's wrapper, put there after this package: installing again wraps it in turn, and a JVM
    # error that is not the connector's goes through it unchanged.
    seen: list[object] = []

    def other_library(e: object) -> object:
        seen.append(e)
        return installed(e)

    captured.convert_exception = other_library
    try:
        install_exception_conversion()
        assert captured.convert_exception.__wrapped__ is other_library  # type: ignore[attr-defined]
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        unrelated = jvm.java.lang.IllegalArgumentException("not the connector's")
        converted = captured.convert_exception(unrelated)
        assert seen == [unrelated]
        assert type(converted) is captured.IllegalArgumentException, type(converted)
        assert not isinstance(converted, KinesisError)
    finally:
        captured.convert_exception = installed


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
