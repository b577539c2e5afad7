"""Fixtures of the Python end-to-end tests: a Kinesis to talk to, fresh streams, and a PySpark session that
loads the built connector jar as a user would."""

from __future__ import annotations

import contextlib
import glob
import os
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "dev"))

from kinesis_emulator import (  # noqa: E402
    FAKE_ACCESS_KEY,
    FAKE_SECRET_KEY,
    KinesisEmulator,
    wait_for_stream,
)

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")


@dataclass(frozen=True)
class Kinesis:
    """Where the tests' Kinesis is, and the source options that reach it."""

    endpoint: str
    region: str
    credentials: dict[str, str]

    def client(self) -> Any:
        import boto3

        keys = {}
        if self.credentials:
            keys = {
                "aws_access_key_id": self.credentials["awsAccessKey"],
                "aws_secret_access_key": self.credentials["awsSecretKey"],
            }
        return boto3.client("kinesis", endpoint_url=self.endpoint, region_name=self.region, **keys)

    def options(self, stream: str, **extra: str) -> dict[str, str]:
        return {
            "streamName": stream,
            "endpoint": self.endpoint,
            "region": self.region,
            **self.credentials,
            **extra,
        }


@pytest.fixture(scope="session")
def kinesis() -> Iterator[Kinesis]:
    """kinesis-local on a free port, always stopped; or KINESIS_ENDPOINT with the usual AWS variables."""
    external = os.environ.get("KINESIS_ENDPOINT")
    if external:
        yield Kinesis(external, os.environ.get("AWS_REGION", "us-east-1"), {})
        return
    with KinesisEmulator(log_path=ROOT / "tests" / "python" / "emulator.log") as emulator:
        yield Kinesis(
            emulator.endpoint,
            emulator.region,
            {"awsAccessKey": FAKE_ACCESS_KEY, "awsSecretKey": FAKE_SECRET_KEY},
        )


@pytest.fixture
def new_stream(kinesis: Kinesis) -> Iterator[Any]:
    """Creates uniquely named streams on demand and deletes them after the test."""
    client = kinesis.client()
    created: list[str] = []

    def create(shards: int = 1) -> str:
        name = f"e2e-{uuid.uuid4().hex[:8]}"
        client.create_stream(StreamName=name, ShardCount=shards)
        wait_for_stream(client, name)
        created.append(name)
        return name

    yield create
    for name in created:
        # The stream may already be gone; then there is nothing to clean.
        with contextlib.suppress(client.exceptions.ResourceNotFoundException):
            client.delete_stream(StreamName=name, EnforceConsumerDeletion=True)


def connector_jar() -> str:
    explicit = os.environ.get("SPARK_KINESIS_JAR")
    if explicit:
        return explicit
    jars = sorted(glob.glob(str(ROOT / "connector-jvm/target/scala-2.13/spark-kinesis_2.13-*.jar")))
    if not jars:
        pytest.fail("the connector jar is not built: run `dev/sbt connector/assembly` (dev/test does it)")
    return jars[-1]


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """A fresh local PySpark session with the connector jar on spark.jars."""
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("spark-kinesis-e2e")
        .config("spark.jars", connector_jar())
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )
    yield session
    for query in session.streams.active:
        query.stop()
    session.stop()
