# SPDX-License-Identifier: Apache-2.0
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
from conftest import Kinesis, connector_jar, run_program
from pyspark.sql import SparkSession
from pyspark_kinesis.consumers import ConsumerInfo, KinesisConsumerManager
from pyspark_kinesis.errors import (
    KinesisConsumerNotFoundError,
    KinesisError,
    KinesisOptionError,
    KinesisStreamNotFoundError,
)
from pyspark_kinesis.options import KinesisSourceOptions
from pyspark_kinesis.spark import (
    bundled_lines,
    configure_spark_with_kinesis,
    connector_jars,
    spark_line,
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
        assert missing.value.getCondition() == "KINESIS_STREAM_NOT_FOUND"
        assert "Stream 'no-such-stream' was not found" in str(missing.value)
        with pytest.raises(KinesisOptionError) as bad_name:
            manager.register_consumer(stream, "not a name")
        assert "'not a name' is not a consumer name" in str(bad_name.value)
        with pytest.raises(KinesisConsumerNotFoundError) as unknown:
            manager.deregister_consumer(stream, "never-registered")
        assert "No consumer 'never-registered'" in str(unknown.value)
        assert unknown.value.condition == "KINESIS_CONSUMER_NOT_FOUND"
    with pytest.raises(KinesisOptionError) as bad_option:
        KinesisConsumerManager(spark, {**kinesis.options(None), "endpoint": "ftp://x"})
    assert bad_option.value.getCondition() == "KINESIS_OPTION_INVALID" and "'endpoint'" in str(
        bad_option.value
    )


def _package_jars(directory: Path, *lines: str) -> list[Path]:
    """Jars named as the wheel names them, for `lines`, and the dependencies they share."""
    jars = [directory / f"spark-kinesis-{line}-9.9.9-classes.jar" for line in lines]
    jars.append(directory / "spark-kinesis-9.9.9-dependencies.jar")
    for jar in jars:
        jar.write_bytes(b"")
    return jars


def test_configure_spark_with_kinesis_adds_the_installed_lines_jars_after_the_given_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pyspark.SparkContext._active_spark_context", None)  # as in a process without Spark
    line = spark_line()
    classes, dependencies = _package_jars(tmp_path, "3.4_2.12", line)[1:]
    monkeypatch.setattr("pyspark_kinesis.spark._JARS", tmp_path)
    builder = SparkSession.builder.config("spark.jars", "/opt/other.jar")
    configured = configure_spark_with_kinesis(builder)
    from pyspark_kinesis import _jvm

    assert _jvm.builder_option(configured, "spark.jars") == f"/opt/other.jar,{classes},{dependencies}"
    again = configure_spark_with_kinesis(configured)
    assert _jvm.builder_option(again, "spark.jars") == f"/opt/other.jar,{classes},{dependencies}", "once"


def test_configure_spark_with_kinesis_adds_the_session_extension_of_the_sql_functions_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pyspark.SparkContext._active_spark_context", None)
    _package_jars(tmp_path, spark_line())
    monkeypatch.setattr("pyspark_kinesis.spark._JARS", tmp_path)
    builder = SparkSession.builder.config("spark.sql.extensions", "org.example.Other")
    configured = configure_spark_with_kinesis(configure_spark_with_kinesis(builder))
    from pyspark_kinesis import _jvm

    expected = "org.example.Other,io.github.sparkkinesis.KinesisSparkExtensions"
    assert _jvm.builder_option(configured, "spark.sql.extensions") == expected


def test_configure_spark_with_kinesis_leaves_a_running_spark_that_has_the_connector_as_it_is(
    spark: SparkSession,
) -> None:
    builder = SparkSession.builder.appName("again")
    assert configure_spark_with_kinesis(builder) is builder
    from pyspark_kinesis import _jvm

    assert _jvm.builder_option(builder, "spark.jars") is None


RUNNING_WITHOUT_THE_CONNECTOR = """
import json
from pyspark.sql import SparkSession
from pyspark_kinesis import KinesisError, configure_spark_with_kinesis

spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
try:
    configure_spark_with_kinesis(SparkSession.builder)
    outcome = {"raised": None}
except KinesisError as e:
    outcome = {"raised": type(e).__name__, "message": str(e)}
print("RESULT", json.dumps(outcome))
spark.stop()
"""


def test_configure_spark_with_kinesis_after_spark_started_without_it_says_how_to_start_spark_with_it(
    tmp_path: Path,
) -> None:
    ran = run_program(tmp_path, "running.py", RUNNING_WITHOUT_THE_CONNECTOR, [], timeout=300)
    results = [line for line in ran.stdout.splitlines() if line.startswith("RESULT ")]
    assert results, ran.stdout[-2000:] + ran.stderr[-4000:]
    outcome = json.loads(results[0][len("RESULT ") :])
    assert outcome["raised"] == "KinesisError", outcome
    message = outcome["message"]
    assert message.startswith("Spark already runs in this process"), message
    assert "pyspark --jars " in message and "spark.jars" in message and "--extra-jars" in message, message


def test_configure_spark_with_kinesis_refuses_a_remote_connect_server_saying_how_to_give_it_the_connector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pyspark_kinesis.spark._JARS", tmp_path)
    _package_jars(tmp_path, spark_line())
    with pytest.raises(KinesisError) as remote:
        configure_spark_with_kinesis(SparkSession.builder.remote("sc://spark.example.com:15002"))
    message = str(remote.value)
    assert "connects to the Spark Connect server at sc://spark.example.com:15002" in message
    for advice in ("--packages", "--jars", "spark.addArtifacts", "spark.connect.extensions.relation.classes"):
        assert advice in message
    monkeypatch.setenv("SPARK_REMOTE", "sc://elsewhere:15002")
    with pytest.raises(KinesisError, match="server at sc://elsewhere:15002"):
        configure_spark_with_kinesis(SparkSession.builder.appName("from-the-environment"))


def test_configure_spark_with_kinesis_gives_a_local_connect_server_the_jars_and_the_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pyspark_kinesis import _jvm

    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    monkeypatch.setattr("pyspark_kinesis.spark._JARS", tmp_path)
    classes, dependencies = _package_jars(tmp_path, spark_line())
    plugin = "io.github.sparkkinesis.connect.KinesisConnectPlugin"
    local = configure_spark_with_kinesis(
        SparkSession.builder.remote("local[2]").config(
            "spark.connect.extensions.relation.classes", "org.example.OtherPlugin"
        )
    )
    assert _jvm.builder_option(local, "spark.jars") == f"{classes},{dependencies}"
    assert _jvm.builder_option(local, "spark.connect.extensions.relation.classes") == (
        f"org.example.OtherPlugin,{plugin}"
    )
    by_mode = configure_spark_with_kinesis(SparkSession.builder.config("spark.api.mode", "connect"))
    assert _jvm.builder_option(by_mode, "spark.connect.extensions.relation.classes") == plugin
    classic = configure_spark_with_kinesis(SparkSession.builder.master("local[1]"))
    assert _jvm.builder_option(classic, "spark.connect.extensions.relation.classes") is None


def test_a_pyspark_without_a_spark_of_its_own_is_told_to_use_a_connect_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyspark

    monkeypatch.delenv("SPARK_HOME", raising=False)
    monkeypatch.setattr(pyspark, "__file__", str(tmp_path / "pyspark" / "__init__.py"))
    with pytest.raises(KinesisError) as thin:
        spark_line()
    assert "has no Spark of its own (it is PySpark's Spark Connect client, pyspark-client)" in str(thin.value)
    assert "spark.connect.extensions.relation.classes" in str(thin.value)


def test_the_line_is_the_spark_minor_and_the_scala_of_the_spark_jars(tmp_path: Path) -> None:
    import pyspark

    (tmp_path / "scala-library-2.12.18.jar").write_bytes(b"")
    assert spark_line("3.5.6", tmp_path) == "3.5_2.12"
    (tmp_path / "scala-library-2.12.18.jar").unlink()
    (tmp_path / "scala-library-2.13.8.jar").write_bytes(b"")
    assert spark_line("3.5.1", tmp_path) == "3.5_2.13"
    assert spark_line().startswith(".".join(pyspark.__version__.split(".")[:2]) + "_2.1")
    with pytest.raises(KinesisError) as no_scala:
        spark_line("4.0.1", tmp_path / "nowhere")
    assert "Could not tell which Scala Spark 4.0.1 runs" in str(no_scala.value)


def test_a_package_without_its_jars_or_without_the_line_refuses_clearly(tmp_path: Path) -> None:
    with pytest.raises(KinesisError) as no_jar:
        connector_jars("3.5_2.12", tmp_path)
    assert "carries no connector jar" in str(no_jar.value) and "dev/build" in str(no_jar.value)
    _package_jars(tmp_path, "3.5_2.12", "4.0_2.13")
    assert bundled_lines(tmp_path) == ["3.5_2.12", "4.0_2.13"]
    with pytest.raises(KinesisError) as other_line:
        connector_jars("3.4_2.12", tmp_path)
    assert "This Spark is line 3.4_2.12 (Spark_Scala), and pyspark-kinesis carries the connector for " in str(
        other_line.value
    )
    assert "3.5_2.12, 4.0_2.13 only" in str(other_line.value)
    assert [j.name for j in connector_jars("4.0_2.13", tmp_path)] == [
        "spark-kinesis-4.0_2.13-9.9.9-classes.jar",
        "spark-kinesis-9.9.9-dependencies.jar",
    ]


def test_the_command_line_prints_the_spark_defaults_that_load_the_connector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pyspark_kinesis.__main__ import main

    monkeypatch.delenv("SPARK_KINESIS_JAR", raising=False)
    monkeypatch.setattr("pyspark_kinesis.spark._JARS", tmp_path)
    assert main(["spark-defaults"]) == 1
    assert "error: The pyspark-kinesis package carries no connector jar" in capsys.readouterr().err

    classes, dependencies = _package_jars(tmp_path, "3.4_2.12", spark_line())[1:]
    assert main(["spark-defaults"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert (
        printed[0]
        == f"# The Kinesis connector (pyspark-kinesis, for Spark line {spark_line()}) and its SQL functions."
    )
    settings = dict(line.split(" ", 1) for line in printed[1:])
    assert settings == {
        "spark.jars": f"{classes},{dependencies}",
        "spark.sql.extensions": "io.github.sparkkinesis.KinesisSparkExtensions",
    }

    monkeypatch.setenv("SPARK_KINESIS_JAR", "/opt/spark-kinesis.jar")
    assert main(["spark-defaults"]) == 0
    assert "spark.jars /opt/spark-kinesis.jar" in capsys.readouterr().out.splitlines()


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
    by_arn = _cli(kinesis, "consumers", "list", "--stream", arn.split("/consumer/")[0], "--json")
    assert by_arn.returncode == 0, by_arn.stderr
    assert [json.loads(line)["arn"] for line in by_arn.stdout.splitlines() if line.startswith("{")] == [arn]

    gone = _cli(kinesis, "consumers", "deregister", "--stream", stream, "--name", "spark-kinesis_cli")
    assert gone.returncode == 0, gone.stderr

    missing = _cli(kinesis, "consumers", "list", "--stream", "no-such-stream")
    assert missing.returncode == 1
    assert "error: [KINESIS_STREAM_NOT_FOUND]" in missing.stderr


def test_real_time_on_a_connect_client_that_cannot_ask_for_it_says_which_client_can() -> None:
    from pyspark_kinesis import real_time

    class ConnectWriterOfPySpark41:
        """PySpark 4.1's Connect writer, whose trigger has no realTime and which has no JVM writer."""

        def trigger(self, *, processingTime: str | None = None, availableNow: bool | None = None) -> None:
            raise AssertionError("real_time must not call a trigger without realTime")

    ConnectWriterOfPySpark41.__module__ = "pyspark.sql.connect.streaming.readwriter"
    with pytest.raises(KinesisError) as refused:
        real_time(ConnectWriterOfPySpark41(), "1 minute")  # type: ignore[arg-type]
    assert "Real-time mode from a Spark Connect client needs PySpark 4.2 or later" in str(refused.value)
    assert "processing-time trigger" in str(refused.value)
