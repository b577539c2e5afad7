# SPDX-License-Identifier: Apache-2.0
"""``spark-submit --packages`` with the published coordinates, as EMR steps and plain Spark users run it: the
line's shaded jar from the Maven repository the build publishes to (target/repository, by ``publish``),
offline, with a PySpark script that reads a stream and writes one. dev/test publishes the primary line and
3.5 with Scala 2.12, and runs this on both."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from pathlib import Path

import pyspark
import pytest
from conftest import ROOT, Kinesis, connector_jar, run_program, spark_lines
from pyspark_kinesis.spark import spark_line
from test_end_to_end import put

pytestmark = pytest.mark.packages

SCRIPT = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession

    endpoint, region, source, target, checkpoint, access_key, secret_key = sys.argv[1:8]
    spark = SparkSession.builder.getOrCreate()
    keys = {"awsAccessKey": access_key, "awsSecretKey": secret_key} if access_key else {}
    where = {"endpoint": endpoint, "region": region, **keys}
    query = (
        spark.readStream.format("kinesis")
        .options(streamName=source, initialPosition="trim_horizon", **where)
        .load()
        .selectExpr("partitionKey", "concat('copied-', CAST(data AS STRING)) AS data")
        .writeStream.format("kinesis")
        .options(streamName=target, **where)
        .option("checkpointLocation", checkpoint + "/write")
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(240)
    rows = []
    query = (
        spark.readStream.format("kinesis")
        .options(streamName=target, initialPosition="trim_horizon", **where)
        .load()
        .writeStream.option("checkpointLocation", checkpoint + "/read")
        .trigger(availableNow=True)
        .foreachBatch(lambda batch, _: rows.extend(batch.collect()))
        .start()
    )
    query.awaitTermination(240)
    print("READ", sorted(bytes(r["data"]).decode() for r in rows))
    """
)


IVY_SETTINGS = """<ivysettings>
  <settings defaultResolver="published"/>
  <resolvers>
    <ibiblio name="published" m2compatible="true" root="{repository}"/>
  </resolvers>
</ivysettings>
"""


def test_spark_submit_packages_resolves_the_shaded_jar_offline_and_reads_and_writes(
    kinesis: Kinesis, make_stream: Callable[[int], str], tmp_path: Path
) -> None:
    line = spark_line()
    assert line in spark_lines()
    version = connector_jar().stem.split("-", 3)[3]
    repository = ROOT / "target" / "repository"
    published = repository / "io/github/sparkkinesis" / f"spark-kinesis-{line}" / version
    assert (published / f"spark-kinesis-{line}-{version}.jar").is_file(), (
        f"spark-kinesis-{line} {version} is not published to {repository}: run dev/sbt spark"
        f"{line.replace('.', '')}/publish"
    )
    source, target = make_stream(1), make_stream(1)
    put(kinesis.client(), source, [(f"k{i}", f"r{i}".encode()) for i in range(20)])
    # Offline: Ivy asks only the published repository, not Maven Central or the Spark Packages repository.
    settings = tmp_path / "ivysettings.xml"
    settings.write_text(IVY_SETTINGS.format(repository=repository.as_uri()))
    spark_home = os.environ.get("SPARK_HOME") or str(Path(pyspark.__file__).parent)
    spark_submit = [
        f"{spark_home}/bin/spark-submit",
        "--master",
        "local[2]",
        "--packages",
        f"io.github.sparkkinesis:spark-kinesis-{line}:{version}",
        "--repositories",
        repository.as_uri(),
        # A cache of this test's own, so that what resolves is what the build published just now.
        "--conf",
        f"spark.jars.ivy={tmp_path / 'ivy'}",
        "--conf",
        f"spark.jars.ivySettings={settings}",
        "--conf",
        "spark.ui.enabled=false",
    ]
    args = kinesis.program_args(source, target, str(tmp_path / "checkpoint"))
    ran = run_program(tmp_path, "kinesis_to_kinesis.py", SCRIPT, args, launcher=spark_submit)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-6000:]
    assert f"READ {sorted(f'copied-r{i}' for i in range(20))}" in ran.stdout, ran.stdout[-2000:]
    assert f"found io.github.sparkkinesis#spark-kinesis-{line};{version} in published" in ran.stderr
    jars = list((tmp_path / "ivy" / "jars").glob("*.jar"))
    assert [j.name for j in jars] == [f"io.github.sparkkinesis_spark-kinesis-{line}-{version}.jar"], (
        "the pom pulls no dependency"
    )
