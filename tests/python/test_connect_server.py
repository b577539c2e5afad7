# SPDX-License-Identifier: Apache-2.0
"""Spark Connect against a server of its own (dev/connect_server.py), as a user of a shared cluster meets it:
a client process that only knows the server's address reads, writes and manages consumers, and gets the
connector's errors as its typed exceptions. Two servers: one started with the connector jar on ``--jars`` and
its relation plugin (``spark.connect.extensions.relation.classes``) and session extension (the SQL functions
the Python functions become under Connect), as an operator sets one up; and a bare
one, to which a client brings the jar with ``spark.addArtifacts``. PySpark's own in-process Connect server
is tested in test_connect.py.
"""

from __future__ import annotations

import datetime as dt
import http.server
import json
import os
import secrets
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, Kinesis, connector_jar, run_program
from connect_clients import PRELUDE, result_of, stream_records
from connect_server import ConnectServer
from glue_registry_server import GlueRegistryServer
from kinesis_emulator import FAKE_ACCESS_KEY, FAKE_SECRET_KEY
from test_end_to_end import put
from test_glue_registry import Orders

pytestmark = pytest.mark.connect

READ = (
    PRELUDE
    + """
address, options = sys.argv[1], json.loads(sys.argv[2])
spark = SparkSession.builder.remote(address).getOrCreate()
streamed = stream_to_memory(spark, options, "from_kinesis")
report(streamed=streamed, read=attempt(lambda: batch_read(spark, options)))
spark.stop()
"""
)


def test_a_connect_client_reads_a_stream_as_a_stream_and_as_a_batch(
    connect_server: ConnectServer, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    put(kinesis.client(), stream, [(f"k{i}", f"connect-{i}".encode()) for i in range(12)])
    args = [connect_server.address, json.dumps(kinesis.options(stream))]
    result = result_of(run_program(tmp_path, "read.py", READ, args, timeout=300))
    expected = sorted(f"connect-{i}" for i in range(12))
    assert result == {
        "streamed": {"ended": True, "error": None, "rows": expected},
        "read": {"value": expected},
    }


WRITE = (
    PRELUDE
    + """
address, options = sys.argv[1], json.loads(sys.argv[2])
spark = SparkSession.builder.remote(address).getOrCreate()
report(written=attempt(lambda: write(spark, options, "from-connect-", 5)))
spark.stop()
"""
)


def test_a_connect_clients_batch_write_puts_its_rows_in_the_stream(
    connect_server: ConnectServer, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    args = [connect_server.address, json.dumps(kinesis.options(stream))]
    result = result_of(run_program(tmp_path, "write.py", WRITE, args, timeout=300))
    assert result == {"written": {"value": 5}}
    assert stream_records(kinesis.client(), stream) == [(f"key-{i}", f"from-connect-{i}") for i in range(5)]


MANAGER = (
    PRELUDE
    + """
address, options, stream, name, missing = sys.argv[1], json.loads(sys.argv[2]), *sys.argv[3:6]
spark = SparkSession.builder.remote(address).getOrCreate()
with pyspark_kinesis.KinesisConsumerManager(spark, options) as manager:
    arn = manager.register_consumer(stream, name)
    listed = [
        {
            "class": type(c).__name__,
            "name": c.name,
            "arn": c.arn,
            "status": c.status,
            "created_at": c.created_at.isoformat() if c.created_at else None,
            "utc_offset": str(c.created_at.utcoffset()) if c.created_at else None,
        }
        for c in manager.list_consumers(stream)
    ]
    manager.deregister_consumer(stream, name)
    unknown = attempt(lambda: manager.deregister_consumer(stream, "never-registered"))
    missing_stream = attempt(lambda: manager.list_consumers(missing))
report(arn=arn, listed=listed, unknown=unknown, missing=missing_stream)
spark.stop()
"""
)


def test_the_consumer_manager_registers_lists_and_deregisters_from_a_connect_client(
    connect_server: ConnectServer, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    name = "spark-kinesis_from-connect"
    missing = f"e2e-missing-{secrets.token_hex(4)}"
    args = [connect_server.address, json.dumps(kinesis.options(None)), stream, name, missing]
    started = dt.datetime.now(dt.timezone.utc)
    result = result_of(run_program(tmp_path, "manager.py", MANAGER, args, timeout=300))

    arn = result["arn"]
    assert (
        arn.startswith(f"arn:aws:kinesis:{kinesis.region}:") and f":stream/{stream}/consumer/{name}:" in arn
    )
    (listed,) = result["listed"]
    created_at = dt.datetime.fromisoformat(listed.pop("created_at"))
    assert listed == {
        "class": "ConsumerInfo",
        "name": name,
        "arn": arn,
        "status": "ACTIVE",
        "utc_offset": "0:00:00",
    }
    # The instant Kinesis gave, not one shifted by a time zone.
    assert abs(created_at - started) < dt.timedelta(minutes=5), (created_at, started)

    stream_arn = arn.split("/consumer/")[0]
    consumers = kinesis.client().list_stream_consumers(StreamARN=stream_arn)["Consumers"]
    assert not [c for c in consumers if c["ConsumerName"] == name and c["ConsumerStatus"] == "ACTIVE"], (
        consumers
    )

    unknown = result["unknown"]["raised"]
    assert unknown["type"] == "KinesisConsumerNotFoundError", unknown
    assert unknown["condition"] == "KINESIS_CONSUMER_NOT_FOUND", unknown
    assert unknown["message"].startswith(
        f"[KINESIS_CONSUMER_NOT_FOUND] No consumer 'never-registered' is registered with stream '{stream}'"
    ), unknown
    not_found = result["missing"]["raised"]
    assert not_found["type"] == "KinesisStreamNotFoundError", not_found
    assert not_found["condition"] == "KINESIS_STREAM_NOT_FOUND", not_found
    assert not_found["message"].startswith(f"[KINESIS_STREAM_NOT_FOUND] Stream '{missing}' was not found"), (
        not_found
    )


def _cbor_text(text: str) -> bytes:
    """A CBOR text string (major type 3) of fewer than 65536 bytes."""
    data = text.encode()
    if len(data) < 24:
        return bytes([0x60 + len(data)]) + data
    if len(data) < 0x100:
        return bytes([0x78, len(data)]) + data
    return bytes([0x79]) + len(data).to_bytes(2, "big") + data


class _DeniedHandler(http.server.BaseHTTPRequestHandler):
    """Answers every Kinesis call as Kinesis answers a principal that may not make it: status 400, the error's
    type in the header x-amzn-ErrorType (which the AWS SDK reads it by) and in the body with AWS' message,
    the body in the protocol of the request (the SDK's Kinesis client sends CBOR unless told otherwise)."""

    server: _DenyingKinesis

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        action = self.headers.get("X-Amz-Target", "").rsplit(".", 1)[-1]
        self.server.actions.append(action)
        code = "AccessDeniedException"
        message = (
            f"User: {_DenyingKinesis.PRINCIPAL} is not authorized to perform: kinesis:{action} on resource: "
            "arn:aws:kinesis:us-east-1:123456789012:stream/orders because no identity-based policy allows "
            f"the kinesis:{action} action"
        )
        if "cbor" in self.headers.get("Content-Type", ""):
            content_type = "application/x-amz-cbor-1.1"
            body = b"\xa2" + b"".join(map(_cbor_text, ["__type", code, "message", message]))
        else:
            content_type = "application/x-amz-json-1.1"
            body = json.dumps({"__type": code, "message": message}).encode()
        self.send_response(400)
        self.send_header("Content-Type", content_type)
        self.send_header("x-amzn-ErrorType", code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _DenyingKinesis(http.server.ThreadingHTTPServer):
    """A Kinesis endpoint on loopback that denies every call; records the actions asked for."""

    PRINCIPAL = "arn:aws:iam::123456789012:user/reader"
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _DeniedHandler)
        self.actions: list[str] = []

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def denying_kinesis() -> Iterator[_DenyingKinesis]:
    server = _DenyingKinesis()
    thread = threading.Thread(target=server.serve_forever, name="denying-kinesis", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


BATCH_READ = (
    PRELUDE
    + """
address, options = sys.argv[1], json.loads(sys.argv[2])
spark = SparkSession.builder.remote(address).getOrCreate()
report(read=attempt(lambda: batch_read(spark, options)))
spark.stop()
"""
)


def _batch_read_error(server: ConnectServer, options: dict[str, str], tmp_path: Path) -> dict[str, Any]:
    """What a Connect client's batch read with these options raised at its first action, described."""
    ran = run_program(
        tmp_path, "batch_read.py", BATCH_READ, [server.address, json.dumps(options)], timeout=300
    )
    result = result_of(ran)
    assert "raised" in result["read"], result
    raised: dict[str, Any] = result["read"]["raised"]
    return raised


def test_a_misspelt_option_reaches_a_connect_client_as_a_kinesis_option_error(
    connect_server: ConnectServer, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    misspelt = _batch_read_error(connect_server, kinesis.options(stream, intialPosition="latest"), tmp_path)
    assert misspelt["type"] == "KinesisOptionError" and misspelt["value_error"], misspelt
    assert misspelt["condition"] == "KINESIS_OPTION_UNKNOWN", misspelt
    # A Connect server hands a batch read's option keys to the source in lower case (its planner passes them
    # through a CaseInsensitiveMap), so the key may be named so; the suggestion is the option's own name.
    named = "[KINESIS_OPTION_UNKNOWN] The Kinesis connector has no option 'intialPosition'; did you mean "
    assert misspelt["message"].lower().startswith(named.lower()), misspelt
    assert "did you mean 'initialPosition'?" in misspelt["message"], misspelt


def test_a_missing_stream_reaches_a_connect_client_as_a_kinesis_stream_not_found_error(
    connect_server: ConnectServer, kinesis: Kinesis, tmp_path: Path
) -> None:
    missing = f"e2e-missing-{secrets.token_hex(4)}"
    not_found = _batch_read_error(connect_server, kinesis.options(missing), tmp_path)
    assert not_found["type"] == "KinesisStreamNotFoundError", not_found
    assert not_found["condition"] == "KINESIS_STREAM_NOT_FOUND", not_found
    assert not_found["message"].startswith(
        f"[KINESIS_STREAM_NOT_FOUND] Stream '{missing}' was not found at {kinesis.endpoint}"
    ), not_found


def test_access_denied_reaches_a_connect_client_as_a_kinesis_access_denied_error(
    connect_server: ConnectServer, denying_kinesis: _DenyingKinesis, tmp_path: Path
) -> None:
    options = {
        "endpoint": denying_kinesis.endpoint,
        "region": "us-east-1",
        "streamName": "orders",
        "awsAccessKey": FAKE_ACCESS_KEY,
        "awsSecretKey": FAKE_SECRET_KEY,
    }
    refused = _batch_read_error(connect_server, options, tmp_path)
    assert refused["type"] == "KinesisAccessDeniedError", refused
    assert refused["condition"] == "KINESIS_ACCESS_DENIED", refused
    assert refused["message"].startswith(
        f"[KINESIS_ACCESS_DENIED] Kinesis denied kinesis:ListShards on stream 'orders' at "
        f"{denying_kinesis.endpoint} (region us-east-1) to {_DenyingKinesis.PRINCIPAL}."
    ), refused
    # A batch read lists the shards first, and fails at the first refusal: retrying cannot make Kinesis allow
    # the call.
    assert denying_kinesis.actions == ["ListShards"]


CONFIGURE = (
    PRELUDE
    + """
builder = SparkSession.builder.remote(sys.argv[1])
report(configured=attempt(lambda: str(pyspark_kinesis.configure_spark_with_kinesis(builder))))
"""
)


def test_configure_spark_with_kinesis_tells_a_connect_client_how_a_server_gets_the_connector(
    connect_server: ConnectServer, tmp_path: Path
) -> None:
    result = result_of(run_program(tmp_path, "configure.py", CONFIGURE, [connect_server.address]))
    refused = result["configured"]["raised"]
    assert refused["type"] == "KinesisError", refused
    for named in ("--jars", "addArtifacts", "spark.connect.extensions.relation.classes"):
        assert named in refused["message"], refused


ADDED = (
    PRELUDE
    + """
address, options, jars = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
spark = SparkSession.builder.remote(address).getOrCreate()
spark.addArtifacts(*jars)
report(streamed=stream_to_memory(spark, options, "from_kinesis"))
spark.stop()
"""
)


def test_a_jar_added_to_a_bare_server_with_add_artifacts_reads_a_stream(
    bare_connect_server: ConnectServer, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    put(kinesis.client(), stream, [(f"k{i}", f"artifact-{i}".encode()) for i in range(7)])
    args = [bare_connect_server.address, json.dumps(kinesis.options(stream)), str(connector_jar())]
    result = result_of(run_program(tmp_path, "added.py", ADDED, args, timeout=300))
    expected = sorted(f"artifact-{i}" for i in range(7))
    assert result == {"streamed": {"ended": True, "error": None, "rows": expected}}


def test_the_two_jars_the_wheel_carries_added_with_add_artifacts_read_a_stream(
    bare_connect_server: ConnectServer, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    # What a user with only the wheel has: the line's classes and the shared dependencies, as the wheel
    # splits the connector jar (dev/wheel_jars.py), named by connector_jars.
    from pyspark_kinesis.spark import connector_jars, spark_line

    version = connector_jar().stem.split("-", 3)[3]
    wheel_jars = tmp_path / "jars"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "dev" / "wheel_jars.py"),
            str(wheel_jars),
            version,
            f"{spark_line()}={connector_jar()}",
        ],
        check=True,
        timeout=300,
    )
    jars = [str(jar) for jar in connector_jars(spark_line(), wheel_jars)]
    put(kinesis.client(), stream, [(f"k{i}", f"wheel-{i}".encode()) for i in range(5)])
    args = [bare_connect_server.address, json.dumps(kinesis.options(stream)), *jars]
    result = result_of(run_program(tmp_path, "added.py", ADDED, args, timeout=300))
    expected = sorted(f"wheel-{i}" for i in range(5))
    assert result == {"streamed": {"ended": True, "error": None, "rows": expected}}


ADDED_MANAGER = (
    PRELUDE
    + """
address, jar, options, stream = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
spark = SparkSession.builder.remote(address).getOrCreate()
spark.addArtifacts(jar)
report(listed=attempt(lambda: pyspark_kinesis.KinesisConsumerManager(spark, options).list_consumers(stream)))
spark.stop()
"""
)


def test_the_consumer_manager_on_a_server_without_the_plugin_names_the_setting_that_loads_it(
    bare_connect_server: ConnectServer, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    args = [bare_connect_server.address, str(connector_jar()), json.dumps(kinesis.options(None)), stream]
    result = result_of(run_program(tmp_path, "added_manager.py", ADDED_MANAGER, args, timeout=300))
    refused = result["listed"]["raised"]
    assert refused["kinesis"], refused
    assert "spark.connect.extensions.relation.classes" in refused["message"], refused


def test_the_command_line_manages_consumers_through_a_connect_server(
    connect_server: ConnectServer, kinesis: Kinesis, stream: str
) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        # No jar and no credentials here: the server has the connector, and its own credentials.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "SPARK_KINESIS"))}
        where = [
            "--remote",
            connect_server.address,
            "--endpoint",
            kinesis.endpoint,
            "--region",
            kinesis.region,
        ]
        return subprocess.run(
            [sys.executable, "-m", "pyspark_kinesis", "consumers", *args, *where],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    registered = cli("register", "--stream", stream, "--name", "spark-kinesis_cli-remote")
    assert registered.returncode == 0, registered.stderr[-3000:]
    arn = registered.stdout.strip().splitlines()[-1]
    assert arn.startswith("arn:aws:kinesis:") and "/consumer/spark-kinesis_cli-remote:" in arn, (
        registered.stdout
    )
    listed = cli("list", "--stream", stream, "--json")
    assert listed.returncode == 0, listed.stderr[-3000:]
    (consumer,) = [json.loads(line) for line in listed.stdout.splitlines() if line.startswith("{")]
    assert (consumer["name"], consumer["arn"], consumer["status"]) == (
        "spark-kinesis_cli-remote",
        arn,
        "ACTIVE",
    )
    missing = cli("list", "--stream", f"e2e-missing-{secrets.token_hex(4)}")
    assert missing.returncode == 1 and "error: [KINESIS_STREAM_NOT_FOUND]" in missing.stderr, missing.stderr


GLUE = (
    PRELUDE
    + """
from pyspark.sql import functions as F
from pyspark_kinesis.functions import from_glue_registry, glue_registry_header, to_glue_registry

address, registry = sys.argv[1], sys.argv[2]
options, framed = json.loads(sys.argv[3]), json.loads(sys.argv[4])
spark = SparkSession.builder.remote(address).getOrCreate()
records = spark.createDataFrame([(bytes.fromhex(h),) for h in framed], "data binary")


def decoded(given):
    column = from_glue_registry("data", "orders", registry, given).alias("o")
    return sorted(tuple(r) for r in records.select(column).select("o.*").collect())


def round_trip():
    encoded = to_glue_registry(F.col("o"), "orders", registry, {**options, "compression": "zlib"})
    again = records.select(from_glue_registry("data", "orders", registry, options).alias("o"))
    decoded_again = from_glue_registry("data", "orders", registry, options)
    again = again.select(encoded.alias("data")).select(decoded_again)
    return sorted(tuple(r[0]) for r in again.collect())


def compressions():
    return sorted(r.h.compression for r in records.select(glue_registry_header("data").alias("h")).collect())


report(
    decoded=attempt(lambda: decoded(options)),
    headers=attempt(compressions),
    round_trip=attempt(round_trip),
    misspelt=attempt(lambda: decoded({**options, "schemaVersoin": "1"})),
)
spark.stop()
"""
)


def test_a_connect_client_decodes_glue_registry_records_with_the_servers_sql_functions(
    connect_server: ConnectServer, glue_registry: GlueRegistryServer, tmp_path: Path
) -> None:
    with glue_registry.registry() as registry:
        orders = Orders(glue_registry, registry)
        framed = json.dumps([record.hex() for record in orders.written()])
        args = [connect_server.address, orders.registry, json.dumps(glue_registry.options()), framed]
        result = result_of(run_program(tmp_path, "glue.py", GLUE, args, timeout=300))
        assert result["decoded"] == {"value": [[1, "apple", 0.0], [2, "pear", 2.5], [3, "fig", 4.0]]}, result
        assert result["headers"] == {"value": ["none", "none", "zlib"]}, result
        assert result["round_trip"] == result["decoded"], result
        misspelt = result["misspelt"]["raised"]
        assert misspelt["type"] == "KinesisOptionError", misspelt
        assert misspelt["condition"] == "KINESIS_FUNCTION_OPTION_UNKNOWN", misspelt


READ_KINESIS_SQL = (
    PRELUDE
    + """
address, arguments = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.remote(address).getOrCreate()
major, minor = (int(part) for part in spark.version.split(".")[:2])


def batch():
    rows = spark.sql(f"SELECT CAST(data AS STRING) AS data FROM read_kinesis({arguments})").collect()
    return sorted(r["data"] for r in rows)


def streamed():
    query = (
        spark.sql(f"SELECT CAST(data AS STRING) AS data FROM STREAM read_kinesis({arguments})")
        .writeStream.format("memory")
        .queryName("from_read_kinesis")
        .trigger(availableNow=True)
        .start()
    )
    ended = query.awaitTermination(120)
    rows = sorted(r["data"] for r in spark.table("from_read_kinesis").collect())
    return {"ended": ended, "error": str(query.exception()) if query.exception() else None, "rows": rows}


report(read=attempt(batch), streamed=attempt(streamed) if (major, minor) >= (4, 2) else None)
spark.stop()
"""
)


def test_a_connect_client_reads_with_sqls_read_kinesis_in_a_batch_and_on_42_as_a_stream(
    connect_server: ConnectServer, kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    put(kinesis.client(), stream, [(f"k{i}", f"connect-sql-{i}".encode()) for i in range(12)])
    options = kinesis.options(stream, initialPosition="trim_horizon")
    assert not any("'" in value or "\\" in value for value in options.values())
    arguments = ", ".join(f"{key} => '{value}'" for key, value in options.items())
    result = result_of(
        run_program(tmp_path, "read_kinesis.py", READ_KINESIS_SQL, [connect_server.address, arguments])
    )
    expected = sorted(f"connect-sql-{i}" for i in range(12))
    assert result["read"] == {"value": expected}, result
    import pyspark

    if tuple(int(part) for part in pyspark.__version__.split(".")[:2]) >= (4, 2):
        assert result["streamed"] == {"value": {"ended": True, "error": None, "rows": expected}}, result
    else:
        assert result["streamed"] is None, result
