# SPDX-License-Identifier: Apache-2.0
"""Property tests (Hypothesis) of the option builders against the JVM's rules: for values of every field's
kind drawn at random, well past the samples of test_options.py, a builder takes exactly what the JVM's rule
for the option takes (the rule .load() applies), and refuses the rest with KinesisOptionError, never with
another error. dev/test draws from a fixed seed; dev/fuzz searches further (KINESIS_FUZZ_SCALE)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql import SparkSession
from pyspark_kinesis import KinesisOptionError, _jvm
from pyspark_kinesis.options import KinesisSinkOptions, KinesisSourceOptions

_SCALE = int(os.environ.get("KINESIS_FUZZ_SCALE", "1"))
_PROPERTY = settings(
    max_examples=300 * _SCALE,
    derandomize=_SCALE == 1,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

_NAME_CHARS = "abcXYZ019_.-, /é"


def _kind_values(rule: dict[str, Any]) -> st.SearchStrategy[tuple[Any, str]]:
    """Values of a rule's kind, each with the text the JVM is given for it."""
    kind = rule["kind"]
    if kind == "whole":
        low, high = rule["min"], rule["max"]
        near = st.integers(low - 1000, min(high, low + 10**6) + 1000)
        edges = st.sampled_from([low - 1, low, high, high + 1])
        return st.one_of(near, edges, st.integers()).map(lambda n: (n, str(n)))
    if kind == "decimal":
        low, high = rule["min"], rule["max"]
        values = st.floats(low - 1, high + 1, allow_nan=False, allow_infinity=False)
        return values.map(lambda x: (x, repr(float(x))))
    if kind == "duration":
        return st.integers(0, 10**13).map(lambda ms: (dt.timedelta(milliseconds=ms), f"{ms}ms"))
    if kind == "size":
        low, high = rule["min"], rule["max"]
        near = st.integers(max(0, low - 1000), min(high, 2**40) + 1000)
        return st.one_of(near, st.sampled_from([low - 1, low, high, high + 1])).map(lambda n: (n, str(n)))
    if kind == "names":
        return st.text(alphabet=_NAME_CHARS, max_size=140).map(lambda s: (s, s))
    if kind == "endpoint":
        scheme = st.sampled_from(["http://", "https://", "ftp://", ""])
        host = st.text(alphabet="abc.-_:[]1", min_size=0, max_size=20)
        port = st.one_of(st.just(""), st.integers(-1, 70000).map(lambda p: f":{p}"))
        return st.tuples(scheme, host, port).map(lambda t: ("".join(t), "".join(t)))
    if kind in ("text", "pattern"):
        return st.text(max_size=80).map(lambda s: (s, s))
    raise ValueError(kind)


_KINDS = {"whole", "decimal", "duration", "size", "names", "endpoint", "text", "pattern"}


@pytest.fixture(scope="module")
def rules(spark: SparkSession) -> tuple[Any, list[tuple[type[Any], str, str, dict[str, Any]]]]:
    """The JVM's registry, and every builder field whose rule is of a kind drawn here."""
    registry = _jvm.connector(spark, "api.KinesisOptionsRegistry")
    exported = json.loads(str(registry.json()))
    fields = []
    for builder, side in ((KinesisSourceOptions, "source"), (KinesisSinkOptions, "sink")):
        for f in dataclasses.fields(builder):
            spec = f.metadata["jvm"]
            option = next(o for o in exported[side] if o["key"] == spec.key)
            if option["rule"]["kind"] in _KINDS and spec.key not in ("streamName", "streamARN"):
                fields.append((builder, f.name, spec.key, option["rule"]))
    return registry, fields


@_PROPERTY
@given(data=st.data())
def test_a_builder_takes_exactly_what_the_jvm_takes(rules: Any, data: st.DataObject) -> None:
    registry, fields = rules
    builder, name, key, rule = data.draw(st.sampled_from(fields), label="field")
    value, text = data.draw(_kind_values(rule), label="value")
    base = {"stream_names": "s"} if builder is KinesisSourceOptions else {}
    try:
        options = builder(**base, **{name: value}).to_options()
        python, sent = True, options.get(key, text)
    except KinesisOptionError as refused:
        # Refused for an option it needs (keys, a role's options), after its value was taken: the value is
        # what is compared here (the rules between options are test_options.py's).
        python = refused.getCondition() == "KINESIS_OPTIONS_INCOMPLETE" and (
            refused.getMessageParameters()["present"] == key
        )
        sent = text
    problem = str(registry.check(key, sent))
    assert python == (problem == ""), (
        f"{builder.__name__}.{name} = {value!r} ({sent!r}): JVM says {problem!r}"
    )
