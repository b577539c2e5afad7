# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the Python end-to-end tests: a Kinesis to talk to, fresh streams in it, and a PySpark session
that loads the built connector jar as a user would.

By default the tests start the Kinesis emulator (kinesis-local) on a free loopback port. With KINESIS_ENDPOINT
set they use that endpoint instead (LocalStack, kinesis-mock in Docker, AWS), in AWS_REGION (default
us-east-1), with credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN or else the
default chain; every stream they create has a name unique to the run and is deleted afterwards.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "dev"))

import spark_lines as spark_lines_table  # noqa: E402
from connect_server import ConnectServer  # noqa: E402
from glue_registry_server import GlueRegistryServer  # noqa: E402
from kinesis_emulator import (  # noqa: E402
    FAKE_ACCESS_KEY,
    FAKE_SECRET_KEY,
    KinesisEmulator,
    wait_for_stream,
)

# Set before the JVM starts: Spark binds to loopback, and neither the AWS SDK nor boto3 ever asks the EC2
# instance metadata service for credentials or a region (off EC2 that lookup only stalls).
os.environ["SPARK_LOCAL_IP"] = os.environ.get("SPARK_LOCAL_IP") or "127.0.0.1"
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
# Python workers run the tests' own Python, whatever `python3` is on the PATH (PySpark refuses a mismatch).
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

# The Spark setting that names session extensions, and the connector's, which registers its SQL functions.
SQL_EXTENSIONS = "spark.sql.extensions"
KINESIS_EXTENSIONS = "io.github.sparkkinesis.KinesisSparkExtensions"

# Streams of this run are named e2e-<run>-<n>: unique on a shared endpoint, and easy to find if left behind.
RUN_ID = secrets.token_hex(4)


def built_jar(line: str) -> Path | None:
    """The connector jar the build assembled for a Spark line (such as ``3.5_2.12``), if it did."""
    return spark_lines_table.built_jar(line)


def spark_lines() -> list[str]:
    """The Spark lines of project/spark-lines.tsv, the primary one first."""
    return spark_lines_table.ids()


@dataclasses.dataclass(frozen=True)
class Kinesis:
    """Where the tests' Kinesis is, and the credentials to give the connector as options (None: the chain)."""

    endpoint: str
    region: str
    access_key: str | None
    # Kept out of repr(): pytest shows fixture values in its failure reports.
    secret_key: str | None = dataclasses.field(repr=False)
    session_token: str | None = dataclasses.field(repr=False)
    # True when the endpoint accepts any credentials (the emulator, LocalStack), so a test may choose its own.
    accepts_any_credentials: bool

    def client(self, secret_key: str | None = None) -> Any:
        """A boto3 Kinesis client for the endpoint, with these credentials (or `secret_key` instead)."""
        import boto3
        from botocore.config import Config

        keys: dict[str, str] = {}
        if self.access_key is not None:
            keys["aws_access_key_id"] = self.access_key
            keys["aws_secret_access_key"] = secret_key or self.secret_key or ""
            if self.session_token:
                keys["aws_session_token"] = self.session_token
        return boto3.client(
            "kinesis",
            endpoint_url=self.endpoint,
            region_name=self.region,
            config=Config(retries={"max_attempts": 5, "mode": "standard"}, read_timeout=30),
            **keys,
        )

    def program_args(self, *args: str) -> list[str]:
        """The arguments of a test's PySpark program: the endpoint, the region, `args`, then the access key
        and the secret key ("" for the default chain)."""
        return [self.endpoint, self.region, *args, self.access_key or "", self.secret_key or ""]

    def options(self, stream: str | None, **extra: str) -> dict[str, str]:
        """The source options that read `stream` here; `extra` adds or replaces options."""
        options = {"endpoint": self.endpoint, "region": self.region}
        if stream is not None:
            options["streamName"] = stream
        if self.access_key is not None and self.secret_key is not None:
            options["awsAccessKey"] = self.access_key
            options["awsSecretKey"] = self.secret_key
            if self.session_token:
                options["awsSessionToken"] = self.session_token
        return {**options, **extra}


def _accepts_any_secret(kinesis: Kinesis) -> bool:
    """Whether the endpoint answers a call signed with a made-up secret key (emulators do, AWS does not)."""
    if kinesis.access_key is None:
        return False
    try:
        kinesis.client(secret_key=f"made-up-{secrets.token_hex(8)}").list_streams(Limit=1)
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def kinesis() -> Iterator[Kinesis]:
    """kinesis-local on a free port, always stopped at the end; or KINESIS_ENDPOINT when set."""
    external = os.environ.get("KINESIS_ENDPOINT")
    if external:
        found = Kinesis(
            endpoint=external,
            region=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
            access_key=os.environ.get("AWS_ACCESS_KEY_ID"),
            secret_key=os.environ.get("AWS_SECRET_ACCESS_KEY"),
            session_token=os.environ.get("AWS_SESSION_TOKEN"),
            accepts_any_credentials=False,
        )
        yield dataclasses.replace(found, accepts_any_credentials=_accepts_any_secret(found))
        return
    log = ROOT / "target" / "python-tests" / "emulator.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with KinesisEmulator(log_path=log) as emulator:
        yield Kinesis(
            endpoint=emulator.endpoint,
            region=emulator.region,
            access_key=FAKE_ACCESS_KEY,
            secret_key=FAKE_SECRET_KEY,
            session_token=None,
            accepts_any_credentials=True,
        )


@pytest.fixture
def make_stream(kinesis: Kinesis) -> Iterator[Callable[[int], str]]:
    """Creates streams with names unique to the run, waits until they are ACTIVE, deletes them afterwards."""
    client = kinesis.client()
    created: list[str] = []
    # AWS takes tens of seconds to create a stream; the emulators a fraction of one.
    active_within = 30.0 if kinesis.accepts_any_credentials else 180.0

    def create(shards: int = 1) -> str:
        name = f"e2e-{RUN_ID}-{secrets.token_hex(3)}"
        client.create_stream(StreamName=name, ShardCount=shards)
        created.append(name)
        wait_for_stream(client, name, timeout_seconds=active_within)
        return name

    yield create
    for name in created:
        # The test may have deleted it already.
        with contextlib.suppress(client.exceptions.ResourceNotFoundException):
            client.delete_stream(StreamName=name, EnforceConsumerDeletion=True)


@pytest.fixture
def stream(make_stream: Callable[[int], str]) -> str:
    """A new one-shard stream, deleted after the test."""
    return make_stream(1)


def run_program(
    tmp_path: Path,
    name: str,
    source: str,
    args: Sequence[str],
    launcher: Sequence[str] = (sys.executable,),
    timeout: float = 600,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Runs a PySpark program in a process of its own, as a user would: `source` saved as `tmp_path/name`,
    started by `launcher` (this Python, or spark-submit and its options) with `args`, in `env` (by default
    this process's environment); output captured."""
    program = tmp_path / name
    program.write_text(source)
    return subprocess.run(
        [*launcher, str(program), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=None if env is None else dict(env),
    )


def environment_of_a_venv() -> dict[str, str]:
    """The environment for a program of a virtual environment of its own: this one without PYTHONPATH and
    SPARK_HOME, so that it imports and runs what that environment holds, not the source tree."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_HOME")}


def connector_jar() -> Path:
    """The connector jar: SPARK_KINESIS_JAR, else the one the build assembled for the installed PySpark's
    Spark line."""
    from pyspark_kinesis.spark import spark_line

    explicit = os.environ.get("SPARK_KINESIS_JAR")
    if explicit:
        if not Path(explicit).is_file():
            pytest.fail(f"SPARK_KINESIS_JAR={explicit} is not a file", pytrace=False)
        return Path(explicit)
    line = spark_line()
    jar = built_jar(line)
    if jar is None:
        pytest.fail(
            f"the connector jar of Spark line {line} is not built: run `dev/sbt spark{line.replace('.', '')}"
            "/assembly` first, or set SPARK_KINESIS_JAR",
            pytrace=False,
        )
    return jar


def copied_connector_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the connector jar, so that a build rewriting it while the tests run cannot pull classes from
    under them."""
    jar = tmp_path_factory.mktemp("jars") / connector_jar().name
    shutil.copyfile(connector_jar(), jar)
    return jar


def build_wheel(tmp_path: Path) -> Path:
    """The wheel as dev/build makes it, with the connector of every line the build assembled (at least the
    installed PySpark's), built from a copy of python/ so that the checkout stays as it is."""
    source = tmp_path / "python"
    shutil.copytree(
        ROOT / "python", source, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__", "jars")
    )
    jars = source / "src" / "pyspark_kinesis" / "jars"
    built = {line: jar for line in spark_lines() if (jar := built_jar(line)) is not None}
    version = connector_jar().stem.split("-", 3)[3]
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "dev" / "wheel_jars.py"),
            str(jars),
            version,
            *(f"{line}={jar}" for line, jar in built.items()),
        ],
        check=True,
        timeout=300,
    )
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dist), str(source)],
        check=True,
        timeout=300,
    )
    (wheel,) = dist.glob("pyspark_kinesis-*.whl")
    return wheel


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A fresh local PySpark session with the connector jar on spark.jars and its session extension (the SQL
    functions), stopped at the end."""
    from pyspark.sql import SparkSession

    jar = copied_connector_jar(tmp_path_factory)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("spark-kinesis-python-e2e")
        .config("spark.jars", str(jar))
        .config(SQL_EXTENSIONS, KINESIS_EXTENSIONS)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("WARN")
    try:
        yield session
    finally:
        for query in session.streams.active:
            with contextlib.suppress(Exception):
                query.stop()
        session.stop()


@pytest.fixture(scope="session")
def glue_registry() -> Iterator[GlueRegistryServer]:
    """An AWS Glue Schema Registry (moto's server) on a free loopback port, always stopped at the end."""
    log = ROOT / "target" / "python-tests" / "glue-registry.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with GlueRegistryServer(log_path=log) as server:
        yield server


# The Spark setting that loads Spark Connect relation plugins when a server starts, and the connector's plugin
# (Spark 4.0 and later), through which a Connect client reaches the connector's consumer manager.
RELATION_PLUGINS = "spark.connect.extensions.relation.classes"
CONNECT_PLUGIN = "io.github.sparkkinesis.connect.KinesisConnectPlugin"


def _connect_server(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    jars: Sequence[Path],
    conf: Mapping[str, str],
    kinesis: Kinesis,
) -> Iterator[ConnectServer]:
    log = ROOT / "target" / "python-tests" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    # The server's default credential chain finds the tests' credentials, as a cluster's finds its role's:
    # calls whose options name no keys (the command line's) are made with them.
    credentials = {
        "AWS_ACCESS_KEY_ID": kinesis.access_key,
        "AWS_SECRET_ACCESS_KEY": kinesis.secret_key,
        "AWS_SESSION_TOKEN": kinesis.session_token,
    }
    server = ConnectServer(
        jars=jars,
        conf=conf,
        log_path=log,
        work_dir=tmp_path_factory.mktemp(name),
        environment={k: v for k, v in credentials.items() if v},
    )
    with server:
        yield server


@pytest.fixture(scope="session")
def connect_server(tmp_path_factory: pytest.TempPathFactory, kinesis: Kinesis) -> Iterator[ConnectServer]:
    """A Spark Connect server of the installed PySpark, on loopback, set up as an operator gives a server the
    connector: its jar on --jars, its relation plugin and its session extension; stopped at the end. Clients
    connect to ``connect_server.address``."""
    jar = copied_connector_jar(tmp_path_factory)
    conf = {RELATION_PLUGINS: CONNECT_PLUGIN, SQL_EXTENSIONS: KINESIS_EXTENSIONS}
    yield from _connect_server(tmp_path_factory, "connect-server", [jar], conf, kinesis)


@pytest.fixture(scope="session")
def bare_connect_server(
    tmp_path_factory: pytest.TempPathFactory, kinesis: Kinesis
) -> Iterator[ConnectServer]:
    """A Spark Connect server of the installed PySpark without the connector: no jar, no plugin (a client
    brings the jar with ``spark.addArtifacts``); stopped at the end."""
    yield from _connect_server(tmp_path_factory, "bare-connect-server", [], {}, kinesis)
