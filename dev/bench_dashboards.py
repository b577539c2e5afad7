# SPDX-License-Identifier: Apache-2.0
"""The dashboards of docs/dashboards filled by a run: a streaming query reads a stream of the Kinesis emulator
through a TCP proxy of this program's, through four phases (steady writes; a burst the query, held to small
GetRecords calls, falls behind on; an outage, the proxy cut; recovery), while the connector's listener
publishes to CloudWatch (moto's server) and Spark's Prometheus servlet serves the gauges, scraped every 2 s.
Then each dashboard is drawn as its definition lays it out, from what CloudWatch holds and what was scraped:
docs/dashboards/cloudwatch-dashboard.svg and grafana-dashboard.svg, the numbers in
bench/results/dashboards-benchmark.json. Checks that every record written was read once.

    dev/bench dashboards [--minutes 2]   (each phase's length; 1 for the short form, about 5 minutes in all)
    dev/bench dashboards --redraw        (the pictures again from the saved numbers)

The connector jar: --jar, else $SPARK_KINESIS_JAR, else the build's (dev/sbt spark43_213/assembly)."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import re
import socket
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dashboards import cloudwatch_dashboard, cloudwatch_template, grafana_dashboard, selected_names
from glue_registry_server import GlueRegistryServer
from kinesis_emulator import FAKE_ACCESS_KEY, FAKE_SECRET_KEY, KinesisEmulator, free_port, wait_for_stream

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "dashboards"
RESULTS = ROOT / "bench" / "results" / "dashboards-benchmark.json"

APP = "dashboards"  # spark.metrics.namespace, the Grafana dashboard's ${app}
QUERY = "dashboards-bench"
NAMESPACE = "SparkKinesis"
SHARDS = 2
RECORD_BYTES = 100
STEADY_RATE = 40  # records a second: well below the emulator's ~800 a second of writes
BURST_RATE = 400
# Records a GetRecords call asks for: with the calls 400 ms apart, a shard is read at 125 records a second at
# most, the stream at 250, slower than the burst, which the query falls behind on (the emulator's lag is how
# far a call's last record is from the newest: 10,000 a call would catch up at once).
MAX_RECORDS_PER_FETCH = 50
SCRAPE_SECONDS = 2
CLOUDWATCH_PERIOD = 10  # the dashboard's own is 60 s: too coarse for phases of a minute
# The template's parameters for this run: thresholds a run of minutes can reach (the defaults are 5 minutes
# behind for 10 minutes, and 2 minutes out).
TEMPLATE_PARAMETERS = {"LagThresholdMs": "10000", "LagMinutes": "1", "OutageSeconds": "30"}
PHASES = ["steady", "burst", "outage", "recovery"]


def default_jar() -> Path | None:
    built = ROOT / "connector-jvm" / "target" / "4.3_2.13" / "scala-2.13"
    jars = sorted(p for p in built.glob("spark-kinesis-4.3_2.13-*.jar") if not p.name.endswith("-tests.jar"))
    return jars[-1] if jars else None


class CuttableProxy:
    """A TCP proxy on loopback to `upstream_port`, which :meth:`cut` takes down (new connections refused,
    open ones closed) and :meth:`restore` brings back on the same port: Kinesis out of reach, as the query
    sees it."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = free_port()
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self.restore()

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            sockets, self._open = self._open, set()
        for s in [listener, *sockets]:
            if s is not None:
                # shutdown first: it wakes the thread blocked in accept, and close alone would leave the port
                # held by it
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # cut
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open.update((client, upstream))
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                target.sendall(data)
        for s in (source, target):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            with self._lock:
                self._open.discard(s)


class Writer(threading.Thread):
    """Puts numbered records to the stream (directly, not through the proxy) at the rate `rate(t)` a second,
    t the seconds since `start`; keeps up with the rate's total, not a call's timing."""

    def __init__(self, client: Any, stream: str, start: float, rate: Callable[[float], float]) -> None:
        super().__init__(daemon=True)
        self.client, self.stream, self.start_time, self.rate = client, stream, start, rate
        self.written = 0
        self.due = 0.0
        self.done = threading.Event()
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            last = self.start_time
            while not self.done.is_set():
                now = time.time()
                self.due += self.rate(now - self.start_time) * (now - last)
                last = now
                while self.written < int(self.due):
                    count = min(500, int(self.due) - self.written)
                    records = [
                        {"Data": f"{n:09d}".ljust(RECORD_BYTES, "-").encode(), "PartitionKey": str(n)}
                        for n in range(self.written, self.written + count)
                    ]
                    failed = self.client.put_records(StreamName=self.stream, Records=records)[
                        "FailedRecordCount"
                    ]
                    if failed:
                        raise RuntimeError(f"{failed} records of a put failed")
                    self.written += count
                time.sleep(0.25)
        except BaseException as e:  # the main thread reports it
            self.failure = e


class Scraper(threading.Thread):
    """Reads the Prometheus servlet every SCRAPE_SECONDS, as Prometheus would: the Kinesis gauges, by time."""

    LINE = re.compile(r"^(\w+)(?:\{[^}]*\})?\s+(\S+)$")

    def __init__(self, url: str, start: float) -> None:
        super().__init__(daemon=True)
        self.url, self.start_time = url, start
        self.samples: list[tuple[float, dict[str, float]]] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(SCRAPE_SECONDS):
            with contextlib.suppress(OSError):
                text = urllib.request.urlopen(self.url, timeout=5).read().decode()
                values = {
                    m.group(1): float(m.group(2))
                    for line in text.splitlines()
                    if "_driver_kinesis_" in line and (m := self.LINE.match(line))
                }
                self.samples.append((round(time.time() - self.start_time, 1), values))


class Records:
    """What the query's batches hold: every record's data, and how many rows came."""

    def __init__(self) -> None:
        self.seen: set[bytes] = set()
        self.rows = 0
        self.lock = threading.Lock()

    def batch(self, frame: Any, _epoch: int) -> None:
        data = [bytes(row["data"]) for row in frame.select("data").collect()]
        with self.lock:
            self.seen.update(data)
            self.rows += len(data)


def rate_at(phase_seconds: float) -> Callable[[float], float]:
    def rate(t: float) -> float:
        # for the first half of the phase: the query, at most 250 records a second, catches up afterwards
        return BURST_RATE if phase_seconds <= t < 1.5 * phase_seconds else STEADY_RATE

    return rate


def run(jar: Path, phase_seconds: float, work: Path) -> dict[str, Any]:
    """Runs the query through the phases; returns what CloudWatch holds and what was scraped."""
    from pyspark.sql import SparkSession
    from pyspark_kinesis import publish_metrics_to_cloudwatch

    stream = "orders"
    with (
        KinesisEmulator(log_path=work / "emulator.log") as emulator,
        GlueRegistryServer(log_path=work / "moto.log") as moto,
    ):
        kinesis = emulator.client()
        kinesis.create_stream(StreamName=stream, ShardCount=SHARDS)
        wait_for_stream(kinesis, stream)
        proxy = CuttableProxy(emulator.port)
        ui_port = free_port()
        servlet = "org.apache.spark.metrics.sink.PrometheusServlet"
        spark = (
            SparkSession.builder.master("local[2]")
            .appName(APP)
            .config("spark.jars", str(jar))
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.ui.port", str(ui_port))
            .config("spark.metrics.namespace", "${spark.app.name}")
            .config("spark.metrics.conf.*.sink.prometheusServlet.class", servlet)
            .config("spark.metrics.conf.*.sink.prometheusServlet.path", "/metrics/prometheus")
            .config("spark.sql.streaming.metricsEnabled", "true")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        credentials = {"awsAccessKey": FAKE_ACCESS_KEY, "awsSecretKey": FAKE_SECRET_KEY}
        publish_metrics_to_cloudwatch(
            spark, namespace=NAMESPACE, region=moto.region, endpoint=moto.endpoint, options=credentials
        )
        options = {
            "streamName": stream,
            "endpoint": f"http://127.0.0.1:{proxy.port}",
            "region": emulator.region,
            **credentials,
            "initialPosition": "trim_horizon",
            "maxRecordsPerFetch": str(MAX_RECORDS_PER_FETCH),
            "outageTimeout": f"{int(phase_seconds * 3)}s",  # above the outage
        }
        records = Records()
        start = time.time()
        query = (
            spark.readStream.format("kinesis")
            .options(**options)
            .load()
            .writeStream.queryName(QUERY)
            .option("checkpointLocation", str(work / "checkpoint"))
            .trigger(processingTime="1 second")
            .foreachBatch(records.batch)
            .start()
        )
        writer = Writer(kinesis, stream, start, rate_at(phase_seconds))
        scraper = Scraper(f"http://127.0.0.1:{ui_port}/metrics/prometheus", start)
        writer.start()
        scraper.start()

        def watch(until: float) -> None:
            while time.time() - start < until:
                if writer.failure is not None:
                    raise RuntimeError(f"the writer failed: {writer.failure}")
                if not query.isActive:
                    raise RuntimeError(f"the query stopped: {query.exception()}")
                time.sleep(0.5)

        phases = {}
        try:
            for i, phase in enumerate(PHASES):
                phases[phase] = i * phase_seconds
                print(f"{phase} from {i * phase_seconds:.0f} s", flush=True)
                if phase == "outage":
                    proxy.cut()
                if phase == "recovery":
                    proxy.restore()
                watch((i + 1) * phase_seconds)
            writer.done.set()
            writer.join()
            end = time.time() - start
            print(f"{writer.written} records written; waiting for the query to read them", flush=True)
            deadline = time.time() + 180
            while len(records.seen) < writer.written and time.time() < deadline:
                watch(time.time() - start + 1)
            # The listener sends what it queued; the last scrapes see the caught-up query.
            watch(time.time() - start + 15)
        finally:
            scraper.done.set()
            query.stop()
            spark.stop()
            proxy.cut()
        expected = {f"{n:09d}".ljust(RECORD_BYTES, "-").encode() for n in range(writer.written)}
        check = {
            "written": writer.written,
            "rows": records.rows,
            "distinct": len(records.seen),
            "missing": len(expected - records.seen),
            "unexpected": len(records.seen - expected),
        }
        cloudwatch = read_cloudwatch(moto, stream, start, time.time())
    return {
        "phases": phases,
        "end": round(end, 1),
        "stream": stream,
        "check": check,
        "cloudwatch": cloudwatch,
        "prometheus": scraper.samples,
    }


def template_parameters(stream: str) -> dict[str, str]:
    return {"Namespace": NAMESPACE, "QueryName": QUERY, "StreamName": stream, **TEMPLATE_PARAMETERS}


def metric_lines(widget: dict[str, Any]) -> list[tuple[list[str], dict[str, Any]]]:
    """A widget's metric lines: the names (with "." resolved as CloudWatch does) and the line's options."""
    lines, previous = [], []
    for line in widget["properties"].get("metrics", []):
        names = [part for part in line if isinstance(part, str)]
        extra = next((part for part in line if isinstance(part, dict)), {})
        names = [previous[i] if part == "." else part for i, part in enumerate(names)]
        previous = names or previous
        lines.append((names, extra))
    return lines


def read_cloudwatch(moto: GlueRegistryServer, stream: str, start: float, end: float) -> dict[str, Any]:
    """Every metric the dashboard's widgets read, with each statistic they ask, at CLOUDWATCH_PERIOD, by
    seconds since `start`; and numStreams' sample count, which the silent alarm watches."""
    client = moto.client("cloudwatch")
    wanted = {("numStreams", "SampleCount")}
    for widget in cloudwatch_dashboard(template_parameters(stream))["widgets"]:
        for names, extra in metric_lines(widget):
            if names:
                wanted.add((names[1], extra.get("stat", widget["properties"].get("stat", "Maximum"))))
    series = {}
    for metric, stat in sorted(wanted):
        answer = client.get_metric_statistics(
            Namespace=NAMESPACE,
            MetricName=metric,
            Dimensions=[{"Name": "Query", "Value": QUERY}, {"Name": "Stream", "Value": stream}],
            StartTime=datetime.datetime.fromtimestamp(start - CLOUDWATCH_PERIOD, datetime.timezone.utc),
            EndTime=datetime.datetime.fromtimestamp(end + CLOUDWATCH_PERIOD, datetime.timezone.utc),
            Period=CLOUDWATCH_PERIOD,
            Statistics=[stat],
        )
        points = sorted((p["Timestamp"].timestamp() - start, p[stat]) for p in answer["Datapoints"])
        series[f"{metric} {stat}"] = [[round(t, 1), v] for t, v in points]
    return series


# ---- what each dashboard shows ----

DIFF_EXPRESSION = re.compile(r"IF\(DIFF\((\w+)\) > 0, DIFF\(\1\), 0\)")


def cloudwatch_panels(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The CloudWatch dashboard's widgets filled with the run's data: each visible line, its metric math
    worked out here (the only form the dashboard uses: a count's growth a period, 0 where it falls)."""
    panels = []
    for widget in cloudwatch_dashboard(template_parameters(run["stream"]))["widgets"]:
        properties = widget["properties"]
        panel = {"title": properties["title"], "grid": [widget[k] for k in ("x", "y", "width", "height")]}
        if widget["type"] == "alarm":
            panel["alarms"] = alarm_figures(run)
            panels.append(panel)
            continue
        by_id, lines = {}, []
        for names, extra in metric_lines(widget):
            if names:
                stat = extra.get("stat", properties.get("stat", "Maximum"))
                points = run["cloudwatch"][f"{names[1]} {stat}"]
                by_id[extra.get("id", names[1])] = points
                if extra.get("visible", True):
                    lines.append({"label": extra.get("label", names[1]), "points": points, **axis(extra)})
            else:
                lines.append({"label": extra["label"], "expression": extra["expression"]})
        for line in lines:
            if "expression" in line:
                match = DIFF_EXPRESSION.fullmatch(line.pop("expression"))
                if match is None:
                    raise ValueError(f"a metric math expression this program does not work out: {line}")
                values = by_id[match.group(1)]
                line["points"] = [[t, max(0.0, v - p)] for (_, p), (t, v) in zip(values, values[1:])]
        panel["lines"] = lines
        panel["thresholds"] = [
            (a["label"], float(a["value"])) for a in properties.get("annotations", {}).get("horizontal", [])
        ]
        panels.append(panel)
    return panels


def axis(extra: dict[str, Any]) -> dict[str, Any]:
    return {"right": True} if extra.get("yAxis") == "right" else {}


def alarm_figures(run: dict[str, Any]) -> list[str]:
    """Each alarm of the template, its condition and what the run's data held against it."""
    parameters = {
        name: str(spec.get("Default", "")) for name, spec in cloudwatch_template()["Parameters"].items()
    }
    parameters.update(template_parameters(run["stream"]))
    cloudwatch = run["cloudwatch"]

    def highest(key: str) -> float:
        return max((v for _, v in cloudwatch[key]), default=0.0)

    errors = cloudwatch["numAwsRateLimitErrors Maximum"]
    growth = max((v - p for (_, p), (_, v) in zip(errors, errors[1:])), default=0.0)
    times = [t for t, _ in cloudwatch["numStreams SampleCount"]]
    gap = max((b - a for a, b in zip(times, times[1:])), default=0.0)
    return [
        f"LagAlarm: maxMsBehindLatest > {parameters['LagThresholdMs']} ms for {parameters['LagMinutes']} min"
        f" — highest {highest('maxMsBehindLatest Maximum'):.0f} ms",
        f"OutageAlarm: secondsSinceLastSuccessfulCall > {parameters['OutageSeconds']} s"
        f" — highest published {highest('secondsSinceLastSuccessfulCall Maximum'):.0f} s",
        f"ThrottlingAlarm: numAwsRateLimitErrors grows > {parameters['ThrottledPerMinute']} a minute"
        f" — largest growth {growth:.0f} (the emulator never throttles)",
        f"SilentAlarm: no datum for {parameters['SilentMinutes']} min"
        f" — longest time between data {gap:.0f} s",
    ]


INCREASE = re.compile(r"increase\((.*)\[1m:\]\)", re.DOTALL)


def grafana_panels(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The Grafana dashboard's panels filled with what was scraped: each target's expression as Prometheus
    works it out, in the two forms the dashboard uses: a gauge's value (label_replace only names the line),
    and increase(...[1m:]), the growth over the last minute (a fall counted as a restart from 0)."""
    source = f"kinesis_{QUERY.replace('-', '_')}_{run['stream']}"
    samples = run["prometheus"]
    panels = []
    for panel in grafana_dashboard(APP, source)["panels"]:
        grid = panel["gridPos"]
        defaults = panel["fieldConfig"]["defaults"]
        steps = defaults.get("thresholds", {}).get("steps", [])
        lines = []
        for target in panel["targets"]:
            expression = target["expr"]
            increase = INCREASE.fullmatch(expression)
            (pattern,) = selected_names(expression)
            names = sorted({name for _, values in samples for name in values if re.match(pattern, name)})
            for name in names:
                points = [[t, values[name]] for t, values in samples if name in values]
                if increase:
                    points = growth_over_a_minute(points)
                label = target["legendFormat"].replace("{{source}}", source)
                lines.append({"label": label, "points": points})
        panels.append(
            {
                "title": panel["title"],
                "unit": defaults.get("unit", ""),
                "grid": [grid["x"], grid["y"], grid["w"], grid["h"]],
                "lines": lines,
                "thresholds": [("threshold", float(s["value"])) for s in steps if s["value"] is not None],
            }
        )
    return panels


def growth_over_a_minute(points: list[list[float]]) -> list[list[float]]:
    growth = []
    for i, (t, _) in enumerate(points):
        window = [v for u, v in points[: i + 1] if u >= t - 60]
        growth.append([t, sum(b - a if b >= a else b for a, b in zip(window, window[1:]))])
    return growth


# ---- pictures ----

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]
CELL = 50  # pixels a grid column
WIDTH = 24 * CELL


def ticks(top: float) -> list[float]:
    """Round ticks from 0 to at least `top`: steps of 1, 2 or 5 times a power of ten, five to ten of them."""
    import math

    top = top if top > 0 else 1.0
    magnitude = 10 ** math.floor(math.log10(top / 5))
    step = next(s * magnitude for s in (1, 2, 5, 10) if top / (s * magnitude) <= 10)
    return [i * step for i in range(math.ceil(top / step - 1e-9) + 1)]


def number(v: float) -> str:
    return f"{v:.6g}" if abs(v) < 1e6 else f"{v:.3g}"


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def stretches(points: list[list[float]], gap: float) -> list[list[list[float]]]:
    """`points` cut where no datum came for more than `gap` seconds: a line has a gap where data had one."""
    out: list[list[list[float]]] = []
    for point in points:
        if not out or point[0] - out[-1][-1][0] > gap:
            out.append([])
        out[-1].append(point)
    return out


def draw_panel(
    panel: dict[str, Any],
    box: tuple[float, float, float, float],
    gap: float,
    t_end: float,
    phases: dict[str, float],
) -> str:
    """One panel in `box` (x, y, width, height in pixels): title, axes with round ticks (time up to
    `t_end`), a line a series (cut where data is missing for over `gap` s), the thresholds the definition
    draws (named in the legend when above the data), the `phases`, a legend."""
    x0, y0, w, h = box
    out = [f'<rect x="{x0 + 4}" y="{y0 + 4}" width="{w - 8}" height="{h - 8}" fill="none" stroke="#ccc"/>']
    out.append(f'<text x="{x0 + 12}" y="{y0 + 22}" font-size="13">{escape(panel["title"])}</text>')
    if "alarms" in panel:
        for i, text in enumerate(panel["alarms"]):
            condition, figure = text.split(" — ")
            out.append(
                f'<text x="{x0 + 12}" y="{y0 + 50 + i * 40}" font-size="12">{escape(condition)}</text>'
            )
            out.append(f'<text x="{x0 + 24}" y="{y0 + 66 + i * 40}" fill="#555">{escape(figure)}</text>')
        return "\n".join(out)
    left_lines = [line for line in panel["lines"] if not line.get("right")]
    right_lines = [line for line in panel["lines"] if line.get("right")]
    legend_rows = len(panel["lines"]) + len(panel["thresholds"])
    left, right = x0 + 60, x0 + w - (60 if right_lines else 16)
    top, bottom = y0 + 32, y0 + h - 26 - 15 * legend_rows
    t_ticks = ticks(t_end)
    t_max = t_ticks[-1]

    def x(t: float) -> float:
        return left + t / t_max * (right - left)

    def scale(lines: list[dict[str, Any]]) -> list[float]:
        return ticks(max((v for line in lines for _, v in line["points"]), default=0.0))

    y_ticks = scale(left_lines)
    if panel.get("thresholdsInAxis") and panel["thresholds"]:
        y_ticks = ticks(max([y_ticks[-1], *(value for _, value in panel["thresholds"])]))
    for t in t_ticks:
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{bottom}" stroke="#eee"/>')
        out.append(f'<text x="{x(t):.1f}" y="{bottom + 13}" text-anchor="middle">{number(t)}</text>')

    def y_of(v: float, axis_ticks: list[float]) -> float:
        return bottom - v / axis_ticks[-1] * (bottom - top)

    for v in y_ticks:
        out.append(f'<line x1="{left}" y1="{y_of(v, y_ticks):.1f}" x2="{right}" y2="{y_of(v, y_ticks):.1f}"')
        out.append(' stroke="#eee"/>')
        out.append(
            f'<text x="{left - 5}" y="{y_of(v, y_ticks):.1f}" dy="4" text-anchor="end">{number(v)}</text>'
        )
    if right_lines:
        r_ticks = scale(right_lines)
        for v in r_ticks:
            out.append(f'<text x="{right + 5}" y="{y_of(v, r_ticks):.1f}" dy="4">{number(v)}</text>')
    for phase, t in phases.items():
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{bottom}" stroke="#999"')
        out.append(' stroke-dasharray="2 3"/>')
        out.append(f'<text x="{x(t) + 3:.1f}" y="{top + 10}" font-size="9" fill="#555">{phase}</text>')
    frame = f'x="{left}" y="{top}" width="{right - left}" height="{bottom - top}"'
    out.append(f'<rect {frame} fill="none" stroke="#888"/>')
    legend = []
    for i, line in enumerate(panel["lines"]):
        color = COLORS[i % len(COLORS)]
        axis_ticks = r_ticks if line.get("right") else y_ticks
        for stretch in stretches(line["points"], gap):
            path = " ".join(f"{x(t):.1f},{y_of(v, axis_ticks):.1f}" for t, v in stretch)
            out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="1.5"/>')
        legend.append((line["label"] + (" (right axis)" if line.get("right") else ""), color, ""))
    for label, value in panel["thresholds"]:
        shown = value <= y_ticks[-1]
        if shown:
            y = y_of(value, y_ticks)
            out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#d62728"')
            out.append(' stroke-dasharray="6 4"/>')
        where = "" if shown else ", above the axis"
        legend.append((f"{label}: {number(value)}{where}", "#d62728", ' stroke-dasharray="6 4"'))
    for i, (label, color, dash) in enumerate(legend):
        ly = bottom + 30 + i * 15
        out.append(f'<line x1="{left}" y1="{ly}" x2="{left + 22}" y2="{ly}" stroke="{color}"')
        out.append(f' stroke-width="2"{dash}/>')
        out.append(f'<text x="{left + 28}" y="{ly}" dy="4">{escape(label)}</text>')
    return "\n".join(out)


def picture(
    title: str, caption: list[str], panels: list[dict[str, Any]], row: int, gap: float, run: dict[str, Any]
) -> str:
    """The dashboard as an SVG: its panels where the grid puts them (`row` pixels a grid row), under a title
    and a caption that says where the picture comes from."""
    header = 30 + 16 * len(caption)
    height = header + max(p["grid"][1] + p["grid"][3] for p in panels) * row
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif"'
        ' font-size="11">',
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
        f'<text x="10" y="22" font-size="15">{escape(title)}</text>',
    ]
    for i, line in enumerate(caption):
        out.append(f'<text x="10" y="{42 + i * 16}" fill="#555">{escape(line)}</text>')
    # one time axis for every panel: to the end of the writes, or of the data if later (the query catching up)
    t_end = max([run["end"], *(t for p in panels for line in p.get("lines", []) for t, _ in line["points"])])
    for panel in panels:
        gx, gy, gw, gh = panel["grid"]
        box = (gx * CELL, header + gy * row, gw * CELL, gh * row)
        out.append(draw_panel(panel, box, gap, t_end, run["phases"]))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def draw(result: dict[str, Any]) -> None:
    """The two pictures, from a run's saved result."""
    check = result["check"]
    common = [
        f"drawn by dev/bench dashboards from a run on {result['date']} (not a screenshot): kinesis-local"
        f" emulator, {SHARDS} shards, phases of {result['phaseMinutes']:g} min; x axis: seconds since the"
        " query started",
        f"phases: steady {STEADY_RATE} records/s; a burst of {BURST_RATE}/s for half its phase, read at"
        f" {MAX_RECORDS_PER_FETCH} records a GetRecords call; an outage (a proxy between Spark and the"
        " emulator cut); recovery",
    ]
    written = f"{check['written']} records written, {check['distinct']} read once; throttling stays 0:"
    written += " the emulator never throttles"
    parameters = ", ".join(f"{k}={v}" for k, v in result["templateParameters"].items())
    pictures = {
        "cloudwatch-dashboard.svg": picture(
            "CloudWatch dashboard of docs/dashboards/cloudwatch.yaml",
            [
                *common,
                "data: what the connector's listener published to moto's CloudWatch, at"
                f" {result['cloudwatchPeriodSeconds']} s periods (the dashboard's: 60 s); template parameters"
                f" {parameters}",
                f"{written}; the lag has a gap while Kinesis cannot be reached (a failing stream has none)",
            ],
            # CloudWatch makes room for a widget's annotations; Grafana's axis follows the data alone.
            [{**panel, "thresholdsInAxis": True} for panel in result["cloudwatch"]],
            50,
            2.5 * result["cloudwatchPeriodSeconds"],
            result,
        ),
        "grafana-dashboard.svg": picture(
            "Grafana dashboard of docs/dashboards/grafana.json",
            [
                *common,
                f"data: Spark's Prometheus servlet scraped every {SCRAPE_SECONDS} s, each panel's expression"
                " worked out by the program; thresholds as the dashboard sets them",
                written,
            ],
            result["grafana"],
            30,
            2.5 * SCRAPE_SECONDS,
            result,
        ),
    }
    for name, svg in pictures.items():
        (OUT / name).write_text(svg)
        print(f"Saved {OUT / name}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--minutes", type=float, default=2.0, help="each phase's length (default 2; 1: short)"
    )
    parser.add_argument("--jar", type=Path, default=os.environ.get("SPARK_KINESIS_JAR") or default_jar())
    parser.add_argument("--redraw", action="store_true", help=f"only draw the pictures again from {RESULTS}")
    args = parser.parse_args()
    if args.redraw:
        draw(json.loads(RESULTS.read_text()))
        return
    if args.jar is None or not Path(args.jar).exists():
        sys.exit(f"no connector jar ({args.jar}): build it with dev/sbt spark43_213/assembly, or pass --jar")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
    began = time.time()
    with tempfile.TemporaryDirectory(prefix="bench-dashboards-") as work:
        run_data = run(Path(args.jar), args.minutes * 60, Path(work))
    check = run_data["check"]
    print(
        f"records: {check['written']} written, {check['rows']} rows read, {check['distinct']} distinct,"
        f" {check['missing']} missing, {check['unexpected']} unexpected"
    )
    cloudwatch, grafana = cloudwatch_panels(run_data), grafana_panels(run_data)

    def peak(panels: list[dict[str, Any]], title: str) -> float:
        (panel,) = [p for p in panels if p["title"].startswith(title)]
        return max((v for _, v in panel["lines"][0]["points"]), default=0.0)

    summary = {
        "peakLagMs": peak(grafana, "Lag behind"),
        "peakOutageSeconds": peak(grafana, "Seconds since"),
        "cloudwatch": {
            "peakLagMs": peak(cloudwatch, "Lag behind"),
            "peakOutageSeconds": peak(cloudwatch, "Seconds since"),
        },
        "runSeconds": round(time.time() - began),
    }
    print(f"peak lag {summary['peakLagMs']:.0f} ms; outage seen for {summary['peakOutageSeconds']:.0f} s")
    result = {
        "date": datetime.date.today().isoformat(),
        "phaseMinutes": args.minutes,
        "summary": summary,
        **{k: run_data[k] for k in ("phases", "end", "check")},
        "cloudwatchPeriodSeconds": CLOUDWATCH_PERIOD,
        "templateParameters": TEMPLATE_PARAMETERS,
        "cloudwatch": cloudwatch,
        "grafana": grafana,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    print(f"Saved {RESULTS}")
    draw(result)
    if check["missing"] or check["unexpected"] or check["rows"] != check["distinct"] or not check["written"]:
        sys.exit("FAILED: not every record written was read exactly once")


if __name__ == "__main__":
    main()
