# SPDX-License-Identifier: Apache-2.0
"""The source's metrics in Spark's metric system, as docs/guides/operations.md tells a user to export them: a
PySpark program of its own (the metric system is made with the application) with the Prometheus servlet and
spark.sql.streaming.metricsEnabled, whose query's lag gauge the servlet serves with its progress's value."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest
from conftest import Kinesis, copied_connector_jar, run_program
from dashboards import alert_expressions, grafana_expressions, selected_names

PROGRAM = r"""
import json, sys, time, urllib.request
from pyspark.sql import SparkSession

jar, port, options = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
servlet = "org.apache.spark.metrics.sink.PrometheusServlet"
spark = (
    SparkSession.builder.master("local[2]")
    .appName("metrics-system-e2e")
    .config("spark.jars", jar)
    .config("spark.driver.host", "127.0.0.1")
    .config("spark.ui.port", port)
    .config("spark.metrics.namespace", "${spark.app.name}")
    .config("spark.metrics.conf.*.sink.prometheusServlet.class", servlet)
    .config("spark.metrics.conf.*.sink.prometheusServlet.path", "/metrics/prometheus")
    .config("spark.sql.streaming.metricsEnabled", "true")
    .getOrCreate()
)
query = (
    spark.readStream.format("kinesis").options(**options).load()
    .writeStream.format("noop").queryName("orders-lag")
    .option("checkpointLocation", sys.argv[4]).trigger(processingTime="1 hour").start()
)
deadline = time.time() + 120
while query.lastProgress is None and time.time() < deadline:
    time.sleep(0.2)
progress = query.lastProgress["sources"][0]["metrics"]
served = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics/prometheus", timeout=30).read().decode()
query.stop()
after = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics/prometheus", timeout=30).read().decode()
outcome = {"progress": progress, "served": served.splitlines(), "after": after.splitlines()}
print("RESULT " + json.dumps(outcome))
spark.stop()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_prometheus_servlet_serves_the_querys_lag_as_its_progress_says(
    kinesis: Kinesis, stream: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    kinesis.client().put_record(StreamName=stream, Data=b"hello", PartitionKey="pk")
    options = kinesis.options(stream, initialPosition="trim_horizon")
    jar = copied_connector_jar(tmp_path_factory)
    args = [str(jar), str(free_port()), json.dumps(options), str(tmp_path / "checkpoint")]
    ran = run_program(tmp_path, "metrics.py", PROGRAM, args, timeout=300)
    results = [line for line in ran.stdout.splitlines() if line.startswith("RESULT ")]
    assert results, ran.stdout[-2000:] + ran.stderr[-4000:]
    outcome = json.loads(results[0][len("RESULT ") :])

    stream_part = "".join(c if c.isalnum() else "_" for c in stream)
    gauge = f"metrics_metrics_system_e2e_driver_kinesis_orders_lag_{stream_part}_maxMsBehindLatest_Value"
    lines = [line for line in outcome["served"] if line.startswith(gauge + "{")]
    assert lines, [line for line in outcome["served"] if "kinesis" in line]
    assert lines[0].rsplit(" ", 1)[1] == outcome["progress"]["maxMsBehindLatest"]
    assert not [line for line in outcome["after"] if "_kinesis_orders_lag_" in line], "gone with the query"

    # The Grafana dashboard and the alerting rules of docs/dashboards select the query's gauges by name.
    served = {line.split("{", 1)[0] for line in outcome["served"] if not line.startswith("#")}
    source = f"kinesis_orders_lag_{stream_part}"
    expressions = grafana_expressions("metrics_system_e2e", source) + list(alert_expressions().values())
    for expression in expressions:
        for pattern in selected_names(expression):
            chosen = sorted(name for name in served if re.match(pattern, name))
            assert chosen, f"{pattern} of {expression} selects no gauge"
            assert all(source in name for name in chosen), chosen
        for replaced in re.findall(r'"__name__", "([^"]+)"\)', expression):
            extracted = {m.group(1) for name in served if (m := re.fullmatch(replaced, name))}
            assert extracted == {source}, f"the legend's pattern {replaced} finds {extracted}"
