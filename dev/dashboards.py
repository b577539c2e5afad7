# SPDX-License-Identifier: Apache-2.0
"""The dashboards and alarms of docs/dashboards, read as CloudFormation, Grafana and Prometheus read them: the
CloudWatch metrics the template's dashboard and alarms name, and the Prometheus expressions of the Grafana
dashboard and the alerting rules, so that tests can hold them against what the connector publishes, and
dev/bench_dashboards.py can draw them filled with a run's data."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

DASHBOARDS = Path(__file__).resolve().parents[1] / "docs" / "dashboards"
CLOUDWATCH_TEMPLATE = DASHBOARDS / "cloudwatch.yaml"
GRAFANA_DASHBOARD = DASHBOARDS / "grafana.json"
PROMETHEUS_ALERTS = DASHBOARDS / "prometheus-alerts.yml"

# A CloudWatch metric: namespace, name, and its dimensions as (name, value) pairs.
Metric = tuple[str, str, frozenset[tuple[str, str]]]


def cloudwatch_template() -> dict[str, Any]:
    """The template, with CloudFormation's short forms (``!Sub``, ``!Ref``, ...) read as ``{"Sub": ...}``."""
    import yaml  # the primary line's tools only: the lines' environments collect this module too

    class TemplateLoader(yaml.SafeLoader):
        pass

    def tagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
        if isinstance(node, yaml.ScalarNode):
            value: Any = loader.construct_scalar(node)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
        return {suffix: value}

    TemplateLoader.add_multi_constructor("!", tagged)
    template: dict[str, Any] = yaml.load(CLOUDWATCH_TEMPLATE.read_text(), Loader=TemplateLoader)
    return template


def _resolved(value: Any, parameters: dict[str, str]) -> Any:
    """A property with its ``Ref`` of a parameter replaced by the parameter's value."""
    if isinstance(value, dict) and set(value) == {"Ref"}:
        return parameters[value["Ref"]]
    return value


def cloudwatch_dashboard(parameters: dict[str, str]) -> dict[str, Any]:
    """The dashboard's body as CloudFormation makes it for `parameters` (with the template's defaults)."""
    template = cloudwatch_template()
    values = {name: str(spec.get("Default", "")) for name, spec in template["Parameters"].items()}
    values.update(parameters)
    values["AWS::Region"] = "us-east-1"
    body = template["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Sub"]

    def substituted(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.endswith(".Arn"):
            return f"arn:aws:cloudwatch:us-east-1:123456789012:alarm:{name[: -len('.Arn')]}"
        return values[name]

    dashboard: dict[str, Any] = json.loads(re.sub(r"\$\{([^}]+)\}", substituted, body))
    return dashboard


def cloudwatch_metrics(parameters: dict[str, str]) -> set[Metric]:
    """Every CloudWatch metric the dashboard's widgets and the alarms read, for `parameters`."""
    found: set[Metric] = set()
    for widget in cloudwatch_dashboard(parameters)["widgets"]:
        previous: list[str] = []
        for line in widget["properties"].get("metrics", []):
            names = [part for part in line if isinstance(part, str)]
            if not names:  # an expression over the others
                continue
            # "." repeats the previous line's part at the same place, as CloudWatch reads it.
            names = [previous[i] if part == "." else part for i, part in enumerate(names)]
            previous = names
            found.add((names[0], names[1], frozenset(zip(names[2::2], names[3::2]))))
    template = cloudwatch_template()
    values = {name: str(spec.get("Default", "")) for name, spec in template["Parameters"].items()}
    values.update(parameters)
    for resource in template["Resources"].values():
        if resource["Type"] != "AWS::CloudWatch::Alarm":
            continue
        properties = resource["Properties"]
        stats = [q["MetricStat"]["Metric"] for q in properties.get("Metrics", []) if "MetricStat" in q]
        if "MetricName" in properties:
            stats.append(properties)
        for metric in stats:
            dimensions = frozenset((d["Name"], _resolved(d["Value"], values)) for d in metric["Dimensions"])
            found.add((_resolved(metric["Namespace"], values), metric["MetricName"], dimensions))
    return found


def grafana_dashboard(app: str, source: str) -> dict[str, Any]:
    """The Grafana dashboard, its panels' expressions with its variables set to `app` and `source`."""
    dashboard: dict[str, Any] = json.loads(GRAFANA_DASHBOARD.read_text())
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            target["expr"] = (
                target["expr"].replace("${app}", app).replace("${source:regex}", re.escape(source))
            )
    return dashboard


def grafana_expressions(app: str, source: str) -> list[str]:
    """The Grafana dashboard's Prometheus expressions, with its variables set to `app` and `source`."""
    return [
        target["expr"] for panel in grafana_dashboard(app, source)["panels"] for target in panel["targets"]
    ]


def alert_expressions() -> dict[str, str]:
    """The Prometheus alerting rules' expressions, by alert."""
    import yaml

    rules = yaml.safe_load(PROMETHEUS_ALERTS.read_text())
    return {rule["alert"]: rule["expr"] for group in rules["groups"] for rule in group["rules"]}


def selected_names(expression: str) -> list[str]:
    """The ``__name__=~"..."`` patterns of a Prometheus expression (anchored, as Prometheus anchors them)."""
    return [f"^(?:{pattern})$" for pattern in re.findall(r'__name__=~"([^"]+)"', expression)]
