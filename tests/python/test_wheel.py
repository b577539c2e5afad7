# SPDX-License-Identifier: Apache-2.0
"""The built wheel alone: a fresh virtual environment with only the wheel and pyspark installed runs a
streaming read through configure_spark_with_kinesis, as a user who ran ``pip install`` would."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pyspark
import pytest
from conftest import ROOT, Kinesis, build_wheel, environment_of_a_venv, run_program

SCRIPT = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession
    from pyspark_kinesis import configure_spark_with_kinesis

    endpoint, region, stream, access_key, secret_key = sys.argv[1:6]
    builder = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
    spark = configure_spark_with_kinesis(builder).getOrCreate()
    keys = {"awsAccessKey": access_key, "awsSecretKey": secret_key} if access_key else {}
    rows = []
    query = (
        spark.readStream.format("kinesis")
        .options(streamName=stream, endpoint=endpoint, region=region, initialPosition="trim_horizon", **keys)
        .load()
        .writeStream.trigger(availableNow=True)
        .foreachBatch(lambda batch, _: rows.extend(batch.collect()))
        .start()
    )
    query.awaitTermination(240)
    print("READ", sorted(bytes(r["data"]).decode() for r in rows))
    """
)


@pytest.mark.packages
def test_a_fresh_environment_with_only_the_wheel_and_pyspark_reads_a_stream(
    kinesis: Kinesis, stream: str, tmp_path: Path
) -> None:
    client = kinesis.client()
    for i in range(5):
        client.put_record(StreamName=stream, Data=f"from-the-wheel-{i}".encode(), PartitionKey=f"k{i}")
    wheel = build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        licences = {
            n.rsplit("/", 1)[1] for n in names if ".dist-info/" in n and n.endswith(("LICENSE", "NOTICE"))
        }
        assert licences == {"LICENSE", "NOTICE"}, names
        (dependencies,) = [n for n in names if n.endswith("-dependencies.jar")]
        with zipfile.ZipFile(io.BytesIO(archive.read(dependencies))) as jar:
            assert jar.read("META-INF/NOTICE") == (ROOT / "NOTICE").read_bytes()
            assert any(n.startswith("META-INF/LICENSE_sdk-core-") for n in jar.namelist())
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    # pyspark comes from pip's cache of the wheel it built for the test environment.
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(wheel), f"pyspark=={pyspark.__version__}"],
        check=True,
        timeout=600,
    )
    ran = run_program(
        tmp_path,
        "read.py",
        SCRIPT,
        kinesis.program_args(stream),
        launcher=[str(python)],
        env=environment_of_a_venv(),
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    expected = sorted(f"from-the-wheel-{i}" for i in range(5))
    assert f"READ {expected}" in ran.stdout, ran.stdout[-2000:]
