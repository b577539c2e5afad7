"""The pyspark_kinesis package: the consumer manager over the connector's JVM side, typed results and
typed errors, and putting the bundled jar on a session."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Kinesis, connector_jar
from pyspark.sql import SparkSession
from pyspark_kinesis.consumers import ConsumerInfo, KinesisConsumerManager
from pyspark_kinesis.errors import KinesisError, KinesisOptionError, KinesisStreamNotFoundError
from pyspark_kinesis.options import KinesisSourceOptions
from pyspark_kinesis.spark import (
    BUILT_FOR_SPARK,
    bundled_jar,
    check_pyspark,
    configure_spark_with_kinesis,
)


def test_consumer_manager_lists_registers_and_deregisters_with_typed_results(
    spark: SparkSession, kinesis: Kinesis, stream: str
) -> None:
    with KinesisConsumerManager(spark, kinesis.options(None)) as manager:
        assert manager.list_consumers(stream) == []
        arn = manager.register_consumer(stream, "spark-kinesis_typed")
        assert arn.startswith("arn:aws:kinesis:") and f"/{stream}/consumer/spark-kinesis_typed:" in arn
        (consumer,) = manager.list_consumers(stream)
        assert isinstance(consumer, ConsumerInfo)
        assert (consumer.name, consumer.arn, consumer.status) == ("spark-kinesis_typed", arn, "ACTIVE")
        assert consumer.created_at is not None and consumer.created_at.tzinfo == dt.timezone.utc
        assert abs((consumer.created_at - dt.datetime.now(dt.timezone.utc)).total_seconds()) < 600
        manager.deregister_consumer(stream, "spark-kinesis_typed")
        assert all(c.status == "DELETING" for c in manager.list_consumers(stream))

    # The same options as a query's typed builder; the manager takes what says where and as whom.
    typed = KinesisSourceOptions(
        stream_names=stream,
        region=kinesis.region,
        endpoint=kinesis.endpoint,
        aws_access_key=kinesis.access_key,
        aws_secret_key=kinesis.secret_key,
        aws_session_token=kinesis.session_token,
        max_fetch_duration=dt.timedelta(seconds=1),
    )
    with KinesisConsumerManager(spark, typed) as manager:
        assert [c.name for c in manager.list_consumers(stream)] in ([], ["spark-kinesis_typed"])


def test_jvm_errors_become_typed_python_errors_with_the_jvm_message(
    spark: SparkSession, kinesis: Kinesis, stream: str
) -> None:
    with KinesisConsumerManager(spark, kinesis.options(None)) as manager:
        with pytest.raises(KinesisStreamNotFoundError) as missing:
            manager.list_consumers("no-such-stream")
        assert missing.value.error_id == "KINESIS_STREAM_NOT_FOUND"
        assert "Stream 'no-such-stream' was not found" in str(missing.value)
        with pytest.raises(KinesisOptionError) as bad_name:
            manager.register_consumer(stream, "not a name")
        assert "'not a name' is not a consumer name" in str(bad_name.value)
        with pytest.raises(KinesisOptionError) as unknown:
            manager.deregister_consumer(stream, "never-registered")
        assert "No consumer 'never-registered'" in str(unknown.value)
    with pytest.raises(KinesisOptionError) as bad_option:
        KinesisConsumerManager(spark, {**kinesis.options(None), "endpoint": "ftp://x"})
    assert bad_option.value.error_id == "KINESIS_OPTION_INVALID" and "'endpoint'" in str(bad_option.value)


def test_configure_spark_with_kinesis_adds_the_bundled_jar_after_the_given_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jar = tmp_path / "spark-kinesis_2.13-9.9.9.jar"
    jar.write_bytes(b"")
    monkeypatch.setattr("pyspark_kinesis.spark._JARS", tmp_path)
    monkeypatch.setattr("pyspark_kinesis.spark.bundled_jar", lambda: bundled_jar(tmp_path))
    builder = SparkSession.builder.config("spark.jars", "/opt/other.jar")
    configured = configure_spark_with_kinesis(builder)
    from pyspark_kinesis import _jvm

    assert _jvm.builder_option(configured, "spark.jars") == f"/opt/other.jar,{jar}"
    again = configure_spark_with_kinesis(configured)
    assert _jvm.builder_option(again, "spark.jars") == f"/opt/other.jar,{jar}", "added once"


def test_a_package_without_its_jar_or_for_another_spark_refuses_clearly(tmp_path: Path) -> None:
    with pytest.raises(KinesisError) as no_jar:
        bundled_jar(tmp_path)
    assert "carries no connector jar" in str(no_jar.value) and "dev/build" in str(no_jar.value)
    with pytest.raises(KinesisError) as other_spark:
        check_pyspark("3.5.1")
    assert f"built for Spark {BUILT_FOR_SPARK} and PySpark is 3.5.1" in str(other_spark.value)
    (tmp_path / "scala-library-2.12.18.jar").write_bytes(b"")
    with pytest.raises(KinesisError) as other_scala:
        check_pyspark(f"{BUILT_FOR_SPARK}.0", tmp_path)
    assert "built for Scala 2.13 and this PySpark runs Scala 2.12" in str(other_scala.value)
    check_pyspark()  # the installed PySpark is the one the jar is built for


def _cli(kinesis: Kinesis, *args: str) -> subprocess.CompletedProcess[str]:
    """Runs ``python -m pyspark_kinesis`` as an operator would, against the tests' Kinesis."""
    env = {**os.environ, "SPARK_KINESIS_JAR": str(connector_jar())}
    if kinesis.access_key and kinesis.secret_key:
        env.update(AWS_ACCESS_KEY_ID=kinesis.access_key, AWS_SECRET_ACCESS_KEY=kinesis.secret_key)
        if kinesis.session_token:
            env["AWS_SESSION_TOKEN"] = kinesis.session_token
    where = ["--endpoint", kinesis.endpoint, "--region", kinesis.region]
    return subprocess.run(
        [sys.executable, "-m", "pyspark_kinesis", *args, *where],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_command_line_registers_lists_and_deregisters_consumers(kinesis: Kinesis, stream: str) -> None:
    registered = _cli(kinesis, "consumers", "register", "--stream", stream, "--name", "spark-kinesis_cli")
    assert registered.returncode == 0, registered.stderr
    arn = registered.stdout.strip().splitlines()[-1]
    assert arn.startswith("arn:aws:kinesis:") and "spark-kinesis_cli" in arn

    listed = _cli(kinesis, "consumers", "list", "--stream", stream, "--json")
    assert listed.returncode == 0, listed.stderr
    consumers = [json.loads(line) for line in listed.stdout.splitlines() if line.startswith("{")]
    assert [(c["name"], c["arn"], c["status"]) for c in consumers] == [("spark-kinesis_cli", arn, "ACTIVE")]

    gone = _cli(kinesis, "consumers", "deregister", "--stream", stream, "--name", "spark-kinesis_cli")
    assert gone.returncode == 0, gone.stderr

    missing = _cli(kinesis, "consumers", "list", "--stream", "no-such-stream")
    assert missing.returncode == 1
    assert "error: [KINESIS_STREAM_NOT_FOUND]" in missing.stderr
