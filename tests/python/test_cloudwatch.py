# SPDX-License-Identifier: Apache-2.0
"""End-to-end: ``publish_metrics_to_cloudwatch``, the one call that makes a session's queries publish the
connector's figures to CloudWatch (moto's server on loopback), in a fresh PySpark session with the built
jar."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Kinesis
from dashboards import cloudwatch_metrics
from glue_registry_server import FAKE_ACCESS_KEY, FAKE_SECRET_KEY, GlueRegistryServer
from pyspark.sql import SparkSession
from pyspark_kinesis import KinesisOptionError, publish_metrics_to_cloudwatch
from test_end_to_end import BatchCollector, poll, put, read


def _listeners(spark: SparkSession) -> list[str]:
    return [str(listener) for listener in spark._jsparkSession.streams().listListeners()]


@pytest.fixture
def without_publisher(spark: SparkSession) -> Iterator[None]:
    """Removes the publisher a test added from the session the tests share."""
    yield
    streams = spark._jsparkSession.streams()
    for listener in streams.listListeners():
        if "CloudWatchMetricsListener" in str(listener):
            streams.removeListener(listener)


def test_one_call_publishes_every_query_progress_figures_to_cloudwatch(
    spark: SparkSession,
    kinesis: Kinesis,
    stream: str,
    glue_registry: GlueRegistryServer,
    tmp_path: Path,
    without_publisher: None,
) -> None:
    settings = {"awsAccessKey": FAKE_ACCESS_KEY, "awsSecretKey": FAKE_SECRET_KEY}
    publish_metrics_to_cloudwatch(
        spark,
        namespace="PyTests",
        region=glue_registry.region,
        endpoint=glue_registry.endpoint,
        options=settings,
    )
    publish_metrics_to_cloudwatch(
        spark,
        namespace="PyTests",
        region=glue_registry.region,
        endpoint=glue_registry.endpoint,
        options=settings,
    )
    assert sum("CloudWatchMetricsListener" in s for s in _listeners(spark)) == 1, (
        "the second call replaces the first"
    )
    collector = BatchCollector()
    records = read(spark, kinesis.options(stream, initialPosition="trim_horizon"))
    query = (
        records.writeStream.queryName("py-cloudwatch")
        .option("checkpointLocation", str(tmp_path / "cp"))
        .foreachBatch(collector._write)
        .start()
    )
    try:
        put(kinesis.client(), stream, [(f"key-{i}", f"order-{i}".encode()) for i in range(20)])
        poll("20 records", collector.rows, lambda rows: len(rows) >= 20, query)
        cloudwatch = glue_registry.client("cloudwatch")
        # What the dashboard and the alarms of docs/dashboards/cloudwatch.yaml read, for this query.
        watched = cloudwatch_metrics(
            {"Namespace": "PyTests", "QueryName": "py-cloudwatch", "StreamName": stream}
        )
        metrics = poll(
            "the query's metrics in CloudWatch",
            lambda: cloudwatch.list_metrics(
                Namespace="PyTests", Dimensions=[{"Name": "Query", "Value": "py-cloudwatch"}]
            )["Metrics"],
            lambda found: {m[1] for m in watched} <= {m["MetricName"] for m in found},
            query,
        )
    finally:
        query.stop()
    assert all({"Name": "Stream", "Value": stream} in m["Dimensions"] for m in metrics)
    published = {
        ("PyTests", m["MetricName"], frozenset((d["Name"], d["Value"]) for d in m["Dimensions"]))
        for m in metrics
    }
    assert watched <= published, (
        f"the dashboard or an alarm reads what is not published: {watched - published}"
    )


def test_a_bad_setting_is_refused_naming_it_and_nothing_changes(spark: SparkSession) -> None:
    before = _listeners(spark)
    with pytest.raises(KinesisOptionError, match="AWS' own"):
        publish_metrics_to_cloudwatch(spark, namespace="AWS/Kinesis", region="us-east-1")
    with pytest.raises(KinesisOptionError, match="maxQueuedData"):
        publish_metrics_to_cloudwatch(spark, region="us-east-1", options={"maxQueuedData": "none"})
    assert _listeners(spark) == before
