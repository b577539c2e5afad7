# SPDX-License-Identifier: Apache-2.0
"""The Spark Connect thin client: an environment with only ``pyspark-client`` (PySpark's Connect client, with
no JVM side: no jars, no py4j) and the built wheel reads, writes, manages consumers and gets a typed option
error from a Connect server that has the connector, as a user of a shared cluster would after
``pip install pyspark-kinesis pyspark-client``.

The environment is THIN_CLIENT_VENV, which dev/test makes (dev/lib.sh ``ensure_thin_client_venv``) with
pyspark-client of the running PySpark's version. pyspark-client is on PyPI for Spark 4.0 to 4.2, so dev/test
runs this test on Spark lines 4.0_2.13, 4.1_2.13 and 4.2_2.13; the server is that PySpark's, with the
connector jar of its line and the connector's plugin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyspark
import pytest
from conftest import Kinesis, build_wheel, environment_of_a_venv, run_program
from connect_clients import PRELUDE, result_of, stream_records
from connect_server import ConnectServer
from glue_registry_server import GlueRegistryServer
from test_connect_server import GLUE
from test_end_to_end import put
from test_glue_registry import Orders

pytestmark = pytest.mark.thin_client


@pytest.fixture(scope="session")
def thin_client_venv() -> Path:
    """THIN_CLIENT_VENV, checked before any server starts."""
    given = os.environ.get("THIN_CLIENT_VENV")
    if not given:
        python = f"{sys.version_info.major}.{sys.version_info.minor}"
        pytest.fail(
            "THIN_CLIENT_VENV is not set: it names a virtual environment with only pyspark-client "
            f"{pyspark.__version__} installed. dev/test makes one and sets it, on Spark lines 4.0 to 4.2. By "
            f"hand: `export THIN_CLIENT_VENV=$(source dev/lib.sh && ensure_thin_client_venv {python} "
            f"{pyspark.__version__})`",
            pytrace=False,
        )
    venv = Path(given)
    if not (venv / "bin" / "python").is_file():
        pytest.fail(f"THIN_CLIENT_VENV={given} has no bin/python", pytrace=False)
    return venv


@pytest.fixture(scope="module")
def thin_python(thin_client_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The thin environment's Python, with the freshly built wheel installed (it changes with the code; the
    environment is made once)."""
    python = str(thin_client_venv / "bin" / "python")
    wheel = build_wheel(tmp_path_factory.mktemp("wheel"))
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", str(wheel)],
        check=True,
        timeout=300,
    )
    return python


# What the thin environment holds, asked without importing the package under test.
CHECK = """
import importlib.metadata, importlib.util, json, pathlib
import pyspark

package = pathlib.Path(pyspark.__file__).parent


def installed(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


print("RESULT", json.dumps({
    "pyspark": pyspark.__version__,
    "pyspark_client": installed("pyspark-client"),
    "classic_pyspark": installed("pyspark"),
    "jars": sorted(str(jar.relative_to(package)) for jar in package.rglob("*.jar")),
    "py4j": importlib.util.find_spec("py4j") is not None,
    "pyspark_kinesis": importlib.util.find_spec("pyspark_kinesis").origin,
}))
"""

THIN = (
    PRELUDE
    + """
address, options, stream, name = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
spark = SparkSession.builder.remote(address).getOrCreate()
streamed = attempt(lambda: stream_to_memory(spark, options, "from_kinesis"))
written = attempt(lambda: write(spark, options, "from-the-thin-client-", 4))


def manage():
    where = {k: v for k, v in options.items() if k != "streamName"}
    with pyspark_kinesis.KinesisConsumerManager(spark, where) as manager:
        arn = manager.register_consumer(stream, name)
        listed = [[c.name, c.arn, c.status] for c in manager.list_consumers(stream)]
        manager.deregister_consumer(stream, name)
    return {"arn": arn, "listed": listed}


def misspelt():
    (
        spark.readStream.format("kinesis")
        .options(**options, intialPosition="trim_horizon")
        .load()
        .writeStream.format("memory")
        .queryName("misspelt")
        .start()
    )


report(streamed=streamed, written=written, managed=attempt(manage), misspelt=attempt(misspelt))
spark.stop()
"""
)


def test_a_thin_client_with_only_pyspark_client_and_the_wheel_reads_writes_and_manages_consumers(
    thin_client_venv: Path,
    thin_python: str,
    connect_server: ConnectServer,
    kinesis: Kinesis,
    stream: str,
    tmp_path: Path,
) -> None:
    venv, python = thin_client_venv, thin_python
    env = environment_of_a_venv()

    held = result_of(run_program(tmp_path, "check.py", CHECK, [], launcher=[python], env=env))
    origin = Path(held.pop("pyspark_kinesis")).resolve()
    assert origin.is_relative_to(venv.resolve()), f"pyspark_kinesis comes from {origin}, not from {venv}"
    assert held == {
        "pyspark": pyspark.__version__,
        "pyspark_client": pyspark.__version__,
        "classic_pyspark": None,
        "jars": [],
        "py4j": False,
    }

    put(kinesis.client(), stream, [(f"k{i}", f"thin-{i}".encode()) for i in range(6)])
    name = "spark-kinesis_thin-client"
    args = [connect_server.address, json.dumps(kinesis.options(stream)), stream, name]
    ran = run_program(tmp_path, "thin_client.py", THIN, args, launcher=[python], env=env, timeout=300)
    result = result_of(ran)

    read = sorted(f"thin-{i}" for i in range(6))
    assert result["streamed"] == {"value": {"ended": True, "error": None, "rows": read}}, ran.stderr[-4000:]

    assert result["written"] == {"value": 4}, ran.stderr[-4000:]
    written = [(f"key-{i}", f"from-the-thin-client-{i}") for i in range(4)]
    assert stream_records(kinesis.client(), stream) == sorted(
        written + [(f"k{i}", f"thin-{i}") for i in range(6)]
    )

    assert "value" in result["managed"], result["managed"]
    arn = result["managed"]["value"]["arn"]
    assert f":stream/{stream}/consumer/{name}:" in arn, arn
    assert result["managed"]["value"]["listed"] == [[name, arn, "ACTIVE"]]
    consumers = kinesis.client().list_stream_consumers(StreamARN=arn.split("/consumer/")[0])["Consumers"]
    assert not [c for c in consumers if c["ConsumerName"] == name and c["ConsumerStatus"] == "ACTIVE"], (
        consumers
    )

    misspelt = result["misspelt"].get("raised")
    assert misspelt is not None, result["misspelt"]
    assert misspelt["type"] == "KinesisOptionError" and misspelt["value_error"], misspelt
    assert misspelt["pyspark"] and misspelt["illegal_argument"], misspelt
    assert misspelt["condition"] == "KINESIS_OPTION_UNKNOWN", misspelt
    assert misspelt["message"].startswith(
        "[KINESIS_OPTION_UNKNOWN] The Kinesis connector has no option 'intialPosition'; did you mean "
        "'initialPosition'?"
    ), misspelt


def test_a_thin_client_decodes_and_encodes_glue_registry_records(
    thin_python: str, connect_server: ConnectServer, glue_registry: GlueRegistryServer, tmp_path: Path
) -> None:
    # The registry functions reach the server as its SQL functions (the session extension): the thin client
    # has no JVM to call them on.
    with glue_registry.registry() as registry:
        orders = Orders(glue_registry, registry)
        framed = json.dumps([record.hex() for record in orders.written()])
        args = [connect_server.address, orders.registry, json.dumps(glue_registry.options()), framed]
        ran = run_program(
            tmp_path, "glue.py", GLUE, args, launcher=[thin_python], env=environment_of_a_venv()
        )
        result = result_of(ran)
        assert result["decoded"] == {"value": [[1, "apple", 0.0], [2, "pear", 2.5], [3, "fig", 4.0]]}, result
        assert result["headers"] == {"value": ["none", "none", "zlib"]}, result
        assert result["round_trip"] == result["decoded"], result
        assert result["misspelt"]["raised"]["condition"] == "KINESIS_FUNCTION_OPTION_UNKNOWN", result
