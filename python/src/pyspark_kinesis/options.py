# SPDX-License-Identifier: Apache-2.0
"""Typed option builders: every option of the connector, in Python naming, checked in Python before it
reaches the JVM.

``to_options()`` gives the JVM's own keys and string values::

    opts = KinesisSourceOptions(
        stream_names=["orders"],
        region="eu-west-1",
        initial_position=InitialPosition.TRIM_HORIZON,
        max_fetch_duration=timedelta(milliseconds=200),
    )
    df = spark.readStream.format("kinesis").options(**opts.to_options()).load()

    backfill = KinesisBatchReadOptions(
        stream_names=["orders"],
        region="eu-west-1",
        initial_position=datetime(2020, 6, 25, tzinfo=timezone.utc),
        end_position=datetime(2020, 6, 26, tzinfo=timezone.utc),
    )
    day = spark.read.format("kinesis").options(**backfill.to_options()).load()

A field left ``None`` is not sent, so the JVM's documented default applies. A bad value fails when the
builder is made, with a :class:`~pyspark_kinesis.KinesisOptionError` (a :class:`ValueError`) that names the
field, the JVM option, the value (never a secret's) and what is accepted. Builders are frozen; use
:func:`dataclasses.replace` to change one (the new value is checked too).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import math
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from decimal import ROUND_HALF_UP, Decimal
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import SplitResult, urlsplit

from pyspark_kinesis.errors import KinesisOptionError

__all__ = [
    "ConsumerIdType",
    "ConsumerMode",
    "EndPosition",
    "InitialPosition",
    "KinesisBatchReadOptions",
    "KinesisSinkOptions",
    "KinesisSourceOptions",
    "NullData",
    "ShardSequenceNumbers",
]


class InitialPosition(Enum):
    """Where a query with no checkpoint, or a batch read, starts reading (option ``initialPosition``).

    For ``at_timestamp``, give ``initial_position`` a timezone-aware :class:`datetime.datetime` instead; to
    start after what a streaming query read, its offset (its progress's ``endOffset``); to start shards at or
    after records, :meth:`at_sequence_numbers` or :meth:`after_sequence_numbers` (or a
    :class:`ShardSequenceNumbers` with both).
    """

    #: Records that arrive after the query starts (the JVM's default for a streaming query).
    LATEST = "latest"
    #: The oldest record each shard still retains (where a batch read starts by default).
    TRIM_HORIZON = "trim_horizon"
    #: The JVM's alias of ``trim_horizon``.
    EARLIEST = "earliest"

    @staticmethod
    def at_sequence_numbers(positions: Mapping[str, Mapping[str, str]]) -> ShardSequenceNumbers:
        """Each named shard from the record of that sequence number on, inclusive; shards not named from
        their start (``at_sequence_number``), e.g.
        ``InitialPosition.at_sequence_numbers({"orders": {"shardId-000000000000": "4959..."}})``.

        :param positions: per stream, per shard id, a sequence number (a row's ``sequenceNumber``, digits).
        """
        return ShardSequenceNumbers(at=positions)

    @staticmethod
    def after_sequence_numbers(positions: Mapping[str, Mapping[str, str]]) -> ShardSequenceNumbers:
        """Each named shard from just after the record of that sequence number; shards not named from their
        start (``after_sequence_number``): where another consumer that read up to those records stopped.

        :param positions: per stream, per shard id, a sequence number (a row's ``sequenceNumber``, digits).
        """
        return ShardSequenceNumbers(after=positions)


@dataclass(frozen=True)
class ShardSequenceNumbers:
    """Where shards start by sequence number, the JVM's ``initialPosition``
    ``{"at_sequence_number": {...}, "after_sequence_number": {...}}``: ``at`` each named shard at that
    record, ``after`` just after it, per stream and shard id. A shard may be in one of them only; shards not
    named are read from their start, but for the ancestors of named shards (read to their ends). Whether
    each sequence number is in its shard is checked when the read starts, by the JVM.

    Checked when made: a bad value raises :class:`~pyspark_kinesis.KinesisOptionError` saying what is wrong.
    """

    #: Per stream, per shard id: the sequence number of the record the shard starts at (inclusive).
    at: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: Per stream, per shard id: the sequence number of the record the shard starts just after.
    after: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Checks that both are mappings of stream names to mappings of shard ids to sequence numbers (strings
        of digits), that a shard is in one only, and that at least one shard is named."""
        named: set[tuple[str, str]] = set()
        for side in ("at", "after"):
            streams = getattr(self, side)
            if not isinstance(streams, Mapping):
                raise KinesisOptionError(
                    f"ShardSequenceNumbers.{side} is {streams!r}: expected a dict of stream names to dicts "
                    'of shard ids to sequence numbers, e.g. {"orders": {"shardId-000000000000": "4959..."}}'
                )
            for stream, shards in streams.items():
                if not isinstance(stream, str) or not isinstance(shards, Mapping):
                    raise KinesisOptionError(
                        f"ShardSequenceNumbers.{side} has {stream!r}: {shards!r}: expected a stream name "
                        "and a dict of shard ids to sequence numbers"
                    )
                for shard, seq in shards.items():
                    if not isinstance(shard, str) or not isinstance(seq, str) or not _DIGITS.fullmatch(seq):
                        raise KinesisOptionError(
                            f"ShardSequenceNumbers.{side} gives shard {shard!r} of stream {stream!r} "
                            f"{seq!r}, which is no sequence number: give the digits of one as a str (a "
                            "row's sequenceNumber)"
                        )
                    if (stream, shard) in named:
                        raise KinesisOptionError(
                            f"ShardSequenceNumbers names shard {shard!r} of stream {stream!r} in both at and "
                            "after; name it in one"
                        )
                    named.add((stream, shard))
        if not named:
            raise KinesisOptionError("ShardSequenceNumbers names no shard: give at or after a shard each")

    @property
    def streams(self) -> list[str]:
        """The streams named, sorted."""
        return sorted({*self.at, *self.after})

    def to_json(self) -> str:
        """The JVM's ``initialPosition`` JSON, keys sorted, sides left out when empty."""
        sides = {
            f"{side}_sequence_number": {s: dict(shards) for s, shards in getattr(self, side).items()}
            for side in ("at", "after")
            if getattr(self, side)
        }
        return json.dumps(sides, sort_keys=True, separators=(",", ":"))


_DIGITS = re.compile(r"[0-9]+", re.ASCII)


class EndPosition(Enum):
    """Where a batch read ends (option ``endPosition``).

    For ``at_timestamp`` (the records that arrived before an instant), give ``end_position`` a
    timezone-aware :class:`datetime.datetime` instead; to end where a streaming query ended (up to and
    including its positions), its offset (its progress's ``endOffset``).
    """

    #: What had arrived when the read is planned, each time a query runs it (the JVM's default).
    LATEST = "latest"


class ConsumerMode(Enum):
    """How the source reads shards (option ``consumerMode``)."""

    #: GetRecords calls, sharing each shard's 2 MB/s with other readers (the JVM's default).
    POLLING = "polling"
    #: Enhanced fan-out: a registered consumer with its own 2 MB/s per shard.
    EFO = "efo"


class ConsumerIdType(Enum):
    """What ``registered_consumer_id`` gives (option ``registeredConsumerIdType``)."""

    #: Consumer names (the JVM's default).
    NAME = "name"
    #: Consumer ARNs, one per stream.
    ARN = "arn"


class NullData(Enum):
    """What the sink does with a row whose ``data`` is null (option ``nullData``)."""

    #: The task fails, naming the row (the JVM's default).
    FAIL = "fail"
    #: The row is not written, and is counted in the metric ``nullDataRowsSkipped``.
    SKIP = "skip"


# ---- the JVM's rules, read from the registry the JVM exports ----
#
# _options.json is generated from the connector's option declarations (the JVM's KinesisOptionsRegistry;
# a JVM test keeps it in step). Read from it: each option's key, default and rule (bounds, patterns, units,
# choices), and each side's rules between options (OptionRelations: options that exclude each other, options
# one of which is required), reasons included; so the bounds, defaults and reasons below are the JVM's own.
# Left here: the converters from Python values (timedelta, datetime, enums) to the JVM's strings, which only
# Python can write, and the checks between options that need the values themselves (consumer names counted
# against the streams, positions naming streams not read, an end before the start); the numbers those use
# (the longest consumer name, a query id's length) come from the registry too.

_ToJvm = Callable[[Any], str]
_LONG_MAX = 2**63 - 1
_EXPORTED: dict[str, Any] = json.loads((Path(__file__).parent / "_options.json").read_text(encoding="utf-8"))
_REGISTRY: dict[str, dict[str, Any]] = {
    o["key"]: o for side in ("source", "batch", "sink") for o in _EXPORTED[side]
}
#: Per side (source, batch, sink, and "shared": the options every side shares), the JVM's rules between
#: options: {"kind": "excludes", "key", "other", "otherValue", "when", "reason"}, {"kind": "requires", "key",
#: "other", "otherValue", "reason"} or {"kind": "oneRequired", "keys", "reason"}.
_RELATIONS: dict[str, list[dict[str, Any]]] = _EXPORTED["relations"]
_CONSUMER_NAMES = _REGISTRY["consumerName"]["rule"]
_DEFAULT_CONSUMER_NAME_PREFIX: str = _REGISTRY["consumerNamePrefix"]["default"]
# A host as the JVM's java.net.URI takes one: a single DNS label, labels of which the last starts with a
# letter, or four numbers of at most 255 (IPv6 addresses: _is_host); anything else has no host there.
_LABEL = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_HOST = re.compile(
    rf"{_LABEL}\.?|(?:{_LABEL}\.)+[a-z](?:[a-z0-9-]*[a-z0-9])?\.?"
    rf"|{_OCTET}(?:\.{_OCTET}){{3}}"
)
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]*)", re.ASCII)


def _pattern(rule: dict[str, Any]) -> re.Pattern[str]:
    """A rule's Java regular expression, whose ``\\w`` and ``\\d`` are ASCII as Java's are."""
    return re.compile(rule["regex"], re.ASCII)


class _Refused(Exception):
    """Raised by a converter: why a value is refused, and what is accepted."""


# What the JVM's String.trim takes off both ends of an option's value: every character up to U+0020 (the
# ASCII controls and the space), and nothing else (str.strip() takes other spaces, and leaves controls).
_JVM_TRIMMED = "".join(map(chr, range(0x21)))


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip(_JVM_TRIMMED):
        raise _Refused("expected a non-empty string")
    return value


def _flag(value: Any) -> str:
    if not isinstance(value, bool):
        raise _Refused("expected True or False")
    return "true" if value else "false"


def _member(kind: type[Enum]) -> _ToJvm:
    def to_jvm(value: Any) -> str:
        if not isinstance(value, kind):
            raise _Refused("expected " + " or ".join(f"{kind.__name__}.{m.name}" for m in kind))
        return str(value.value)

    return to_jvm


def _whole(low: int, high: int = _LONG_MAX) -> _ToJvm:
    def to_jvm(value: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            bounds = f"from {low} to {high}" if high < _LONG_MAX else f"of at least {low}"
            raise _Refused(f"expected a whole number (int) {bounds}")
        return str(value)

    return to_jvm


def _decimal(low: float, high: float, low_excluded: bool, unit: str) -> _ToJvm:
    above = f"above {low:g}" if low_excluded else f"of at least {low:g}"

    def to_jvm(value: Any) -> str:
        number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not number or value > high or value < low or (low_excluded and value == low):
            raise _Refused(f"expected {unit} as a number {above} and at most {high!r}")
        return repr(float(value))

    return to_jvm


def _millis_text(ms: int) -> str:
    """Milliseconds as the JVM's durations read them: whole hours, minutes or seconds when exact."""
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms > 0 and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def _duration(low: dt.timedelta, high: dt.timedelta | None = None) -> _ToJvm:
    one_ms = dt.timedelta(milliseconds=1)
    least = _millis_text(low // one_ms)
    bounds = f"from {least} to {_millis_text(high // one_ms)}" if high is not None else f"of at least {least}"

    def to_jvm(value: Any) -> str:
        if not isinstance(value, dt.timedelta):
            raise _Refused(f"expected a datetime.timedelta {bounds}, e.g. timedelta(milliseconds=400)")
        ms, rest = divmod(value, one_ms)
        if rest:
            raise _Refused("expected a whole number of milliseconds")
        if value < low or (high is not None and value > high):
            raise _Refused(f"expected a duration {bounds}")
        return _millis_text(ms)

    return to_jvm


def _or_inf(finite: _ToJvm) -> _ToJvm:
    def to_jvm(value: Any) -> str:
        if value == "inf":
            return "inf"
        try:
            return finite(value)
        except _Refused as refused:
            raise _Refused(f'{refused}, or "inf"') from None

    return to_jvm


def _bytes_text(n: int) -> str:
    for unit, size in (("tb", 2**40), ("gb", 2**30), ("mb", 2**20), ("kb", 2**10)):
        if n > 0 and n % size == 0:
            return f"{n // size}{unit}"
    return f"{n}b"


def _size(low: int, high: int, units: dict[str, int]) -> _ToJvm:
    accepted = "expected bytes as an int, or a size such as '64mb' (b, kb, mb, gb or tb; 1kb = 1024 bytes)"
    least = _bytes_text(low)
    bounds = f"from {least} to {_bytes_text(high)}" if high < _LONG_MAX else f"of at least {least}"

    def to_jvm(value: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise _Refused(accepted)
        if isinstance(value, int):
            n, text = value, str(value)
        else:
            match = _SIZE.fullmatch(value.strip(_JVM_TRIMMED).replace(",", "").replace("_", "").lower())
            if not match or match[2] not in units:
                raise _Refused(accepted)
            exact = Decimal(match[1]) * units[match[2]]  # exact, as the JVM reads it
            if exact > _LONG_MAX:
                raise _Refused(f"it is too large: expected a size {bounds} and below 2**63 bytes")
            n, text = int(exact.to_integral_value(rounding=ROUND_HALF_UP)), match[1] + match[2]
        if not low <= n <= high:
            raise _Refused(f"expected a size {bounds}")
        return text

    return to_jvm


def _names(value: Any, kind: str, noun: str = "name") -> list[str]:
    """A comma-separated string or a list of names (or ARNs, ids: ``noun``), each stripped, as the JVM
    splits them."""
    if isinstance(value, str):
        names = value.split(",")
    elif isinstance(value, (list, tuple)) and value and all(isinstance(n, str) for n in value):
        names = list(value)
    else:
        raise _Refused(
            f"expected a non-empty list of {kind} {noun}s, or one string of them separated by commas"
        )
    names = [n.strip(_JVM_TRIMMED) for n in names]
    if "" in names:
        raise _Refused(f"it has an empty {kind} {noun}; separate {noun}s with single commas")
    return names


def _name_list(rule: dict[str, Any]) -> _ToJvm:
    pattern, accepted, what, noun = _pattern(rule), rule["accepted"], rule["what"], rule["noun"]

    def to_jvm(value: Any) -> str:
        names = _names(value, what, noun)
        for name in names:
            if not pattern.fullmatch(name):
                raise _Refused(f"{name!r} is not a {what} {noun} ({accepted})")
        twice = sorted({n for n in names if names.count(n) > 1}) if rule["distinct"] else []
        if twice:
            raise _Refused(f"a {what} is named twice: {', '.join(twice)}")
        return ",".join(names)

    return to_jvm


def _one_stream(rule: dict[str, Any]) -> _ToJvm:
    pattern, accepted, noun = _pattern(rule), rule["accepted"], rule["noun"]

    def to_jvm(value: Any) -> str:
        if not isinstance(value, str):
            raise _Refused(f"expected one stream {noun} (a str)")
        if "," in value:
            raise _Refused(
                "the sink writes to one stream; to write to several, give each row its stream in a column"
                " named stream"
            )
        if not pattern.fullmatch(value.strip(_JVM_TRIMMED)):
            raise _Refused(f"expected a stream {noun}: {accepted}")
        return value.strip(_JVM_TRIMMED)

    return to_jvm


def _matching(rule: dict[str, Any]) -> _ToJvm:
    pattern, accepted = _pattern(rule), rule["accepted"]

    def to_jvm(value: Any) -> str:
        if not isinstance(value, str) or not pattern.fullmatch(value.strip(_JVM_TRIMMED)):
            raise _Refused(f"expected {accepted}")
        return value.strip(_JVM_TRIMMED)

    return to_jvm


def _endpoint(value: Any) -> str:
    accepted = "expected an http(s) URL such as https://kinesis.us-east-1.amazonaws.com"
    url = value.strip(_JVM_TRIMMED) if isinstance(value, str) else ""
    if not url or any(c.isspace() for c in url):
        raise _Refused(accepted)
    try:  # the JVM assumes https without a scheme
        parts = urlsplit(url if "://" in url else f"https://{url}")
        hostname = parts.hostname or ""
    except ValueError:  # urllib's own refusals: "Invalid IPv6 URL", a bracketed host that is no address
        raise _Refused(accepted) from None
    if parts.scheme.lower() not in ("http", "https") or not _is_host(hostname, parts.netloc):
        raise _Refused(accepted)
    if not _has_valid_port(parts):
        raise _Refused(f"{accepted}; the port must be a number from 0 to 65535")
    return url


def _is_host(hostname: str, netloc: str) -> bool:
    """Whether the JVM takes `hostname` of `netloc` as a host: a name or an IPv4 address as _HOST says, or an
    IPv6 address written in brackets where the host belongs."""
    if ":" not in hostname:
        return _HOST.fullmatch(hostname) is not None
    try:
        ipaddress.IPv6Address(hostname)
    except ValueError:
        return False
    return netloc.rpartition("@")[2].lower().startswith(f"[{hostname}]")


def _has_valid_port(parts: SplitResult) -> bool:
    try:
        parts.port  # noqa: B018 - reading it checks it
    except ValueError:
        return False
    return True


_OFFSET_EXAMPLE = (
    '{"v":2,"streams":{"orders":{"shards":{"shardId-000000000000":{"kind":"after","seq":"4959..."}}}}}'
)


def _at_timestamp(value: dt.datetime) -> str:
    """A timezone-aware datetime as the JVM's ``at_timestamp`` JSON, in UTC."""
    if value.utcoffset() is None:
        raise _Refused(
            "a datetime without a time zone is ambiguous; give it one, e.g. "
            "datetime(2020, 6, 25, 17, 23, 45, tzinfo=timezone.utc)"
        )
    try:
        utc = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    except OverflowError:
        raise _Refused("it is out of range in UTC") from None
    precision = "seconds" if not utc.microsecond else "milliseconds" if not utc.microsecond % 1000 else "auto"
    return json.dumps({"at_timestamp": utc.isoformat(timespec=precision) + "Z"})


def _query_offset(value: str | Mapping[str, Any]) -> str:
    """A streaming query's offset (its progress's ``endOffset``) as JSON text, checked to have an offset's
    form: an object with a whole version ``v`` and an object ``streams`` of one object per stream. What its
    positions say is the JVM's to read: it refuses, at ``.load()``, an offset it cannot."""
    expected = f"expected a streaming query's offset, its progress's endOffset, e.g. {_OFFSET_EXAMPLE}"
    if isinstance(value, Mapping):
        try:
            text = json.dumps(dict(value), sort_keys=True, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError) as unfit:
            raise _Refused(f"the dict cannot be JSON ({unfit}); {expected}") from None
    else:
        text = value.strip(_JVM_TRIMMED)
    try:
        offset = json.loads(text, parse_constant=_no_constant)
    except ValueError:
        raise _Refused(f"it is not JSON; {expected}") from None
    if not isinstance(offset, dict):
        raise _Refused(f"it is not a JSON object; {expected}")
    if "at_timestamp" in offset:
        raise _Refused(
            "give at_timestamp as a timezone-aware datetime.datetime, e.g. "
            "datetime(2020, 6, 25, 17, 23, 45, tzinfo=timezone.utc)"
        )
    if "at_sequence_number" in offset or "after_sequence_number" in offset:
        raise _Refused(
            "give sequence numbers as InitialPosition.at_sequence_numbers(...), "
            "InitialPosition.after_sequence_numbers(...) or ShardSequenceNumbers(at=..., after=...)"
        )
    version, streams = offset.get("v"), offset.get("streams")
    if isinstance(version, bool) or not isinstance(version, int):
        raise _Refused(f'it has no whole version "v"; {expected}')
    if not isinstance(streams, dict) or not all(isinstance(s, dict) for s in streams.values()):
        raise _Refused(f'it has no object "streams" with an object for each stream; {expected}')
    return text


def _no_constant(name: str) -> Any:
    """Refuses NaN and Infinity, which Python's json reads and JSON (and so the JVM) does not have."""
    raise ValueError(f"{name} is not JSON")


def _offset_streams(text: str) -> list[str]:
    """The streams a position's JVM text names, sorted, when it is a query's offset; none for another."""
    if not text.startswith("{"):
        return []
    given = json.loads(text)
    named = {*given.get("streams", {})}
    for side in ("at_sequence_number", "after_sequence_number"):
        named.update(given.get(side, {}))
    return sorted(named)


def _epoch_ms(value: dt.datetime) -> int:
    """A timezone-aware datetime as the JVM holds an instant: whole milliseconds since the epoch, floored."""
    return (value - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)) // dt.timedelta(milliseconds=1)


def _position(members: type[Enum]) -> _ToJvm:
    """A position's converter: a member of ``members``, a timezone-aware datetime (``at_timestamp``), or a
    streaming query's offset as JSON text or a dict."""
    names = [f".{m.name}" for m in members]
    names[0] = members.__name__ + names[0]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    expected = (
        f"expected {listed}, a timezone-aware datetime.datetime (at_timestamp), or a streaming query's "
        "offset (its progress's endOffset, as JSON text or a dict)"
    )
    by_value = {m.value: m for m in members}

    def to_jvm(value: Any) -> str:
        if isinstance(value, members):
            return str(value.value)
        if isinstance(value, dt.datetime):
            return _at_timestamp(value)
        if isinstance(value, ShardSequenceNumbers):
            if members is not InitialPosition:
                raise _Refused(
                    "sequence numbers are where shards start, not where a read ends; to end at records, give "
                    "a streaming query's offset naming each shard's last record (up to and including it)"
                )
            return value.to_json()
        if isinstance(value, Mapping) or (
            isinstance(value, str) and value.strip(_JVM_TRIMMED).startswith("{")
        ):
            return _query_offset(value)
        if isinstance(value, Enum):
            raise _Refused(f"{type(value).__name__}.{value.name} is not an {members.__name__}; {expected}")
        member = by_value.get(value.strip(_JVM_TRIMMED).lower()) if isinstance(value, str) else None
        hint = f"; for {value!r} give {members.__name__}.{member.name}" if member is not None else ""
        raise _Refused(expected + hint)

    return to_jvm


# ---- the builders ----


@dataclass(frozen=True)
class _Spec:
    """What a builder field is to the JVM: its option key, the JVM's default ("" for none), its converter."""

    key: str
    default: str
    to_jvm: _ToJvm
    secret: bool = False


def _converter(key: str, rule: dict[str, Any], choices: type[Enum] | None, one_stream: bool) -> _ToJvm:
    """The converter that checks a field's value by the JVM option's rule."""
    kind = rule["kind"]
    if kind in ("choice", "position"):
        if choices is None or [m.value for m in choices] != rule["values"]:
            raise AssertionError(f"the values of {key} are {rule['values']} on the JVM")
        return _position(choices) if kind == "position" else _member(choices)
    if kind == "duration":
        one_ms = dt.timedelta(milliseconds=1)
        high = None if rule["maxMs"] == _LONG_MAX else rule["maxMs"] * one_ms
        finite = _duration(rule["minMs"] * one_ms, high)
        return _or_inf(finite) if rule["inf"] else finite
    converters: dict[str, Callable[[], _ToJvm]] = {
        "text": lambda: _text,
        "flag": lambda: _flag,
        "endpoint": lambda: _endpoint,
        "whole": lambda: _whole(rule["min"], rule["max"]),
        "decimal": lambda: _decimal(rule["min"], rule["max"], rule["minExclusive"], rule["unit"]),
        "size": lambda: _size(rule["min"], rule["max"], rule["units"]),
        "pattern": lambda: _matching(rule),
        "names": lambda: _one_stream(rule) if one_stream else _name_list(rule),
    }
    return converters[kind]()


def _jvm(key: str, *, choices: type[Enum] | None = None, one_stream: bool = False) -> dict[str, _Spec]:
    """A field's metadata: the JVM option it is, with the option's default and rule from the registry
    (``choices``: the enum of a choice or a position; ``one_stream``: the sink's single stream)."""
    option = _REGISTRY[key]
    to_jvm = _converter(key, option["rule"], choices, one_stream)
    return {"jvm": _Spec(key, option["default"] or "", to_jvm, option["secret"])}


def _spec(f: Field[Any]) -> _Spec:
    spec = f.metadata["jvm"]
    assert isinstance(spec, _Spec)
    return spec


_Builder = TypeVar("_Builder")
_REQUIRED: Any = object()  # on Python 3.9, the stand-in default of a field that has none


def _is_required(f: Field[Any]) -> bool:
    return f.default is _REQUIRED or (f.default is MISSING and f.default_factory is MISSING)


if TYPE_CHECKING:
    from typing_extensions import dataclass_transform

    @dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
    def _builder(cls: type[_Builder]) -> type[_Builder]: ...

else:

    def _builder(cls):
        """A frozen dataclass with keyword-only arguments and its own repr, on every Python: 3.10 and newer
        have ``kw_only``; on 3.9 fields without a default get a stand-in one (so they may follow fields with
        defaults) and ``__init__`` takes keywords only and requires those fields, as ``kw_only`` would."""
        if sys.version_info >= (3, 10):
            return dataclass(frozen=True, kw_only=True, repr=False)(cls)
        for declared in vars(cls).values():
            if isinstance(declared, Field) and _is_required(declared):
                declared.default = _REQUIRED
        cls = dataclass(frozen=True, repr=False)(cls)
        init = cls.__init__
        required = [f.name for f in fields(cls) if f.default is _REQUIRED]

        def __init__(self, **given):
            missing = [name for name in required if name not in given]
            if missing:
                names = ", ".join(missing)
                raise TypeError(
                    f"{cls.__name__}.__init__() missing required keyword-only argument(s): {names}"
                )
            init(self, **given)

        cls.__init__ = __init__
        return cls


@_builder
class _KinesisOptions:
    """What reading and writing share: where Kinesis is, as whom the connector calls it, and the behavior
    of every builder."""

    #: AWS region of the streams (``region``); default: from the endpoint, else the SDK's region chain.
    region: str | None = field(default=None, metadata=_jvm("region"))
    #: Kinesis endpoint URL (``endpoint``), http or https; default: the region's public endpoint.
    endpoint: str | None = field(default=None, metadata=_jvm("endpoint"))
    #: AWS access key id (``awsAccessKey``); default: the SDK's default credential chain.
    aws_access_key: str | None = field(default=None, metadata=_jvm("awsAccessKey"))
    #: The secret access key of ``aws_access_key`` (``awsSecretKey``); never shown.
    aws_secret_key: str | None = field(default=None, metadata=_jvm("awsSecretKey"))
    #: Session token of temporary keys (``awsSessionToken``); never shown.
    aws_session_token: str | None = field(default=None, metadata=_jvm("awsSessionToken"))
    #: An IAM role to assume for every Kinesis call (``roleArn``), ``arn:aws:iam::<account>:role/<name>``.
    role_arn: str | None = field(
        default=None,
        metadata=_jvm("roleArn"),
    )
    #: The external id the role's trust policy requires (``roleExternalId``).
    role_external_id: str | None = field(default=None, metadata=_jvm("roleExternalId"))
    #: The assumed role's session name (``roleSessionName``): 2 to 64 of letters, digits and ``+=,.@-_``.
    role_session_name: str | None = field(
        default=None,
        metadata=_jvm("roleSessionName"),
    )
    #: STS endpoint URL used to assume ``role_arn`` (``stsEndpoint``); default: the region's.
    sts_endpoint: str | None = field(default=None, metadata=_jvm("stsEndpoint"))
    #: How long a query goes on while every Kinesis call for a stream fails (``outageTimeout``), at least
    #: 1 s, or ``"inf"`` to wait forever.
    outage_timeout: dt.timedelta | Literal["inf"] | None = field(default=None, metadata=_jvm("outageTimeout"))

    #: Which side's rules between options apply (the keys of _RELATIONS): each builder sets its own; these
    #: options alone (the consumer manager's) take those of the options every side shares.
    _SIDE = "shared"

    def __post_init__(self) -> None:
        """Checks every field that is set (and every required one) as the JVM will, then the JVM's rules
        between the options of the builder's side."""
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None or _is_required(f):
                try:
                    _spec(f).to_jvm(value)
                except _Refused as refused:
                    raise self._refusal(f.name, str(refused)) from None
        self._check_relations()

    def _check_relations(self) -> None:
        """Refuses options given together that the JVM's declarations say exclude each other, an option
        given without one it needs, and the options one of which the JVM requires all left out; with the
        JVM's keys, in its order, and its reasons."""
        names = {_spec(f).key: f.name for f in fields(self)}
        for rule in _RELATIONS[self._SIDE]:
            if rule["kind"] == "oneRequired":
                alternatives = [names[key] for key in rule["keys"]]
                if all(getattr(self, name) is None for name in alternatives):
                    raise self._missing(alternatives, rule["reason"])
            elif rule["kind"] == "excludes":
                name, other, when = names[rule["key"]], names[rule["other"]], rule["when"]
                if (
                    getattr(self, name) is not None
                    and self._has(other, rule["otherValue"])
                    and (when is None or self._has(names[when["key"]], when["value"]))
                ):
                    raise self._conflict(name, other, rule["reason"])
            elif rule["kind"] == "requires":
                name, other = names[rule["key"]], names[rule["other"]]
                if getattr(self, name) is not None and not self._has(other, rule["otherValue"]):
                    raise self._incomplete(name, other, rule["otherValue"], rule["reason"])
            else:
                raise AssertionError(
                    f"the JVM declares a rule between options the builders do not know: {rule}"
                )

    def _has(self, name: str, value: str | None) -> bool:
        """With ``value`` None, whether the field ``name`` is set; else whether its JVM value (the JVM's
        default when it is None) is ``value``."""
        given = getattr(self, name) is not None
        if value is None:
            return given
        return (self._jvm_value(name) if given else _spec(self.__dataclass_fields__[name]).default) == value

    def _jvm_value(self, name: str) -> str:
        """The JVM's value of the field ``name``, checked already."""
        return _spec(self.__dataclass_fields__[name]).to_jvm(getattr(self, name))

    def _refusal(self, name: str, reason: str) -> KinesisOptionError:
        """The error for the field ``name``: field, JVM option, value (unless secret) and ``reason``, under
        the JVM's condition for a value it refuses (``KINESIS_OPTION_INVALID``)."""
        spec = _spec(self.__dataclass_fields__[name])
        shown = "*****" if spec.secret else repr(getattr(self, name))
        return KinesisOptionError(
            f"{name} (option {spec.key}) is {shown}: {reason}",
            message_parameters={"key": spec.key, "value": shown, "problem": reason},
        )

    def _shown(self, name: str) -> str:
        """The value of the field ``name`` as a message shows it: ``*****`` for a secret."""
        return "*****" if _spec(self.__dataclass_fields__[name]).secret else repr(getattr(self, name))

    def _conflict(self, name: str, other: str, reason: str) -> KinesisOptionError:
        """The error for the fields ``name`` and ``other`` given together, under the JVM's condition for
        options that exclude each other (``KINESIS_OPTIONS_CONFLICT``) and with its parameters."""
        key, other_key = (_spec(self.__dataclass_fields__[n]).key for n in (name, other))
        return KinesisOptionError(
            f"{name} (option {key}) is {self._shown(name)}: it cannot be given with "
            f"{other}={self._shown(other)} (option {other_key}): {reason}",
            condition="KINESIS_OPTIONS_CONFLICT",
            message_parameters={"key": key, "other": other_key, "reason": reason},
        )

    def _incomplete(self, name: str, other: str, value: str | None, reason: str) -> KinesisOptionError:
        """The error for the field ``name`` given without ``other`` (or without ``other`` being the JVM value
        ``value``), under the JVM's condition for it (``KINESIS_OPTIONS_INCOMPLETE``) and with its
        parameters."""
        key, other_key = (_spec(self.__dataclass_fields__[n]).key for n in (name, other))
        needed = other if value is None else f"{other} (option {other_key}) to be {value!r}"
        return KinesisOptionError(
            f"{name} (option {key}) is {self._shown(name)}: it needs {needed}: {reason}",
            condition="KINESIS_OPTIONS_INCOMPLETE",
            message_parameters={"key": other_key, "present": key, "reason": reason},
        )

    def _missing(self, names: list[str], reason: str) -> KinesisOptionError:
        """The error for the fields ``names``, one of which is required, all left out
        (``KINESIS_OPTION_MISSING``, naming the first as the JVM does)."""
        first, *others = (f"{n} (option {_spec(self.__dataclass_fields__[n]).key})" for n in names)
        alternatives = f"give it or {' or '.join(others)}; " if others else ""
        return KinesisOptionError(
            f"{first} is None: {alternatives}{reason}",
            condition="KINESIS_OPTION_MISSING",
            message_parameters={"key": _spec(self.__dataclass_fields__[names[0]]).key},
        )

    def _set_fields(self) -> Iterator[tuple[str, _Spec, Any]]:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                yield f.name, _spec(f), value

    def to_options(self) -> dict[str, str]:
        """The JVM option keys and string values of the fields that are set, for
        ``.options(**builder.to_options())``.

        :return: JVM option key to value; durations as ``400ms``/``10s``/``5m``/``1h``, booleans as
            ``true``/``false``, lists joined with commas, ``at_timestamp`` as ``{"at_timestamp": "<UTC>Z"}``
        """
        return {spec.key: spec.to_jvm(value) for _, spec, value in self._set_fields()}

    @classmethod
    def jvm_keys(cls) -> list[str]:
        """Every JVM option key this builder can give, in field order.

        :return: the keys, spelled as the JVM's option registry spells them
        """
        return [_spec(f).key for f in fields(cls)]

    @classmethod
    def jvm_defaults(cls) -> dict[str, str]:
        """The default the JVM applies to each key of :meth:`jvm_keys` when its field is ``None``, as the
        option reference (docs/reference/options.md) documents it; ``""`` when the option has none (the
        form of the JVM's ``KinesisOptionsRegistry``).

        :return: JVM option key to its default
        """
        return {_spec(f).key: _spec(f).default for f in fields(cls)}

    def __repr__(self) -> str:
        """The fields that are set; secrets as ``*****``."""
        shown = (f"{name}={'*****' if spec.secret else repr(v)}" for name, spec, v in self._set_fields())
        return f"{type(self).__name__}({', '.join(shown)})"


@_builder
class _KinesisReadOptions(_KinesisOptions):
    """What streaming and batch reads share: the streams, where reading starts, and how shards are read."""

    #: The streams to read (``streamName``): 1 to 128 of letters, digits, ``_.-`` each, no duplicates.
    #: Give this or ``stream_arns``.
    stream_names: list[str] | str | None = field(default=None, metadata=_jvm("streamName"))
    #: Instead of ``stream_names``: the streams' ARNs (``streamARN``), which every call then names them by,
    #: as reading another account's stream through its resource policy requires; the region is theirs.
    stream_arns: list[str] | str | None = field(default=None, metadata=_jvm("streamARN"))
    #: Where a new streaming query, or a batch read, starts (``initialPosition``): an
    #: :class:`InitialPosition`, a timezone-aware datetime for ``at_timestamp``, a
    #: :class:`ShardSequenceNumbers` (``InitialPosition.at_sequence_numbers(...)``) to start shards at or
    #: after records, or a streaming query's offset (its progress's ``endOffset``, JSON text or a dict) to
    #: start after its positions. Left ``None``, a streaming query starts at ``latest`` and a batch read at
    #: ``trim_horizon``.
    initial_position: (
        InitialPosition | ShardSequenceNumbers | dt.datetime | str | Mapping[str, Any] | None
    ) = field(default=None, metadata=_jvm("initialPosition", choices=InitialPosition))
    #: Records asked for per GetRecords call (``maxRecordsPerFetch``), 1 to 10000.
    max_records_per_fetch: int | None = field(default=None, metadata=_jvm("maxRecordsPerFetch"))
    #: Shards asked for per ListShards call (``maxShardsPerDescribe``), 1 to 10000.
    max_shards_per_describe: int | None = field(default=None, metadata=_jvm("maxShardsPerDescribe"))
    #: Whether records trimmed before they were read fail the query (``failOnDataLoss``).
    fail_on_data_loss: bool | None = field(default=None, metadata=_jvm("failOnDataLoss"))
    #: Read rate per shard in MB/s (``maxFetchRate``), above 0 and at most 2.0.
    max_fetch_rate: float | None = field(default=None, metadata=_jvm("maxFetchRate"))
    #: Least time between two GetRecords calls on a shard (``minFetchPeriod``), at least 200 ms.
    min_fetch_period: dt.timedelta | None = field(default=None, metadata=_jvm("minFetchPeriod"))
    #: Polling or enhanced fan-out (``consumerMode``); a batch read polls.
    consumer_mode: ConsumerMode | None = field(
        default=None, metadata=_jvm("consumerMode", choices=ConsumerMode)
    )
    #: How many Spark tasks a read is split into (``maxPartitions``), at least 1: a prefetch job's tasks,
    #: or a batch read's. Not with ``shards_per_task``. Not in real-time mode.
    max_partitions: int | None = field(default=None, metadata=_jvm("maxPartitions"))

    def __post_init__(self) -> None:
        """Checks every field and the JVM's rules between them (the streams named one way), then that the
        query offsets given as positions are of the streams read, as the JVM does. That check stays here,
        not in the registry: it reads the streams out of the values."""
        super().__post_init__()
        streams = self._streams()
        for name in self._positions():
            others = [s for s in _offset_streams(self._jvm_value(name)) if s not in streams]
            if others:
                raise self._refusal(
                    name,
                    f"it has positions in stream {others[0]!r}, which stream_names ({','.join(streams)}) "
                    "does not name",
                )

    def _streams(self) -> list[str]:
        """The names of the streams read: given, or the last part of each ARN."""
        if self.stream_arns is not None:
            return [arn.rsplit("/", 1)[1] for arn in self._jvm_value("stream_arns").split(",")]
        return self._jvm_value("stream_names").split(",")

    def _positions(self) -> list[str]:
        """The fields that say where reading starts or ends and are set."""
        return [
            name for name in ("initial_position", "end_position") if getattr(self, name, None) is not None
        ]


@_builder
class KinesisSourceOptions(_KinesisReadOptions):
    """The options of ``spark.readStream.format("kinesis")``; docs/reference/options.md says what each
    does. Durations are :class:`datetime.timedelta` in whole milliseconds; sizes are bytes as an ``int`` or
    a size string such as ``"2gb"`` (binary units).

    In real-time mode (``.trigger(realTime="5 minutes")`` from PySpark 4.2, or
    :func:`pyspark_kinesis.real_time` from 4.1) nothing is prefetched and there are no micro-batches to
    bound: the fields marked *not in real-time mode* must stay ``None``, or the query fails at its start
    (``KINESIS_OPTION_NOT_IN_REAL_TIME_MODE``).

    :param stream_names: the streams to read (``streamName``), as a list or a comma-separated string;
        required
    """

    #: How often the shard list is refreshed (``shardFetchInterval``).
    shard_fetch_interval: dt.timedelta | None = field(default=None, metadata=_jvm("shardFetchInterval"))
    #: Longest time a prefetch task buffers before handing over (``maxFetchDuration``), at least 1 ms.
    #: Not in real-time mode.
    max_fetch_duration: dt.timedelta | None = field(default=None, metadata=_jvm("maxFetchDuration"))
    #: Prefetched, uncommitted data above which prefetching pauses (``fetchBufferSize``). Not in
    #: real-time mode.
    fetch_buffer_size: int | str | None = field(default=None, metadata=_jvm("fetchBufferSize"))
    #: Shards one prefetch task reads in parallel (``shardsPerTask``), 1 to 1000. Not in real-time mode.
    shards_per_task: int | None = field(default=None, metadata=_jvm("shardsPerTask"))
    #: Average block size in bytes below which blocks are packed together (``coalesceThresholdBlockSize``).
    #: Not in real-time mode.
    coalesce_threshold_block_size: int | None = field(
        default=None, metadata=_jvm("coalesceThresholdBlockSize")
    )
    #: Approximate bytes per partition after packing (``coalesceBinSize``). Not in real-time mode.
    coalesce_bin_size: int | None = field(default=None, metadata=_jvm("coalesceBinSize"))
    #: At most this many records per micro-batch (``maxRecordsPerTrigger``); default: no limit. Not in
    #: real-time mode.
    max_records_per_trigger: int | None = field(default=None, metadata=_jvm("maxRecordsPerTrigger"))
    #: At most this much record data per micro-batch (``maxBytesPerTrigger``); default: no limit. Not in
    #: real-time mode.
    max_bytes_per_trigger: int | str | None = field(default=None, metadata=_jvm("maxBytesPerTrigger"))
    #: efo: the consumer's name, one for all streams or one per stream (``consumerName``); default: the
    #: query's id.
    consumer_name: list[str] | str | None = field(default=None, metadata=_jvm("consumerName"))
    #: efo: put before every consumer name (``consumerNamePrefix``): letters, digits and ``_.-``, or empty.
    consumer_name_prefix: str | None = field(
        default=None,
        metadata=_jvm("consumerNamePrefix"),
    )
    #: efo: how often the consumer's registration is checked (``consumerRefreshInterval``), 1 s to 1 h.
    consumer_refresh_interval: dt.timedelta | None = field(
        default=None,
        metadata=_jvm("consumerRefreshInterval"),
    )
    #: efo: whether the query deregisters its consumers when it stops (``requireConsumerDeregistration``).
    require_consumer_deregistration: bool | None = field(
        default=None, metadata=_jvm("requireConsumerDeregistration")
    )
    #: efo: a consumer registered beforehand to read through (``registeredConsumerId``), by name or ARN as
    #: ``registered_consumer_id_type`` says: one name for all streams, or one per stream in their order. The
    #: query then never registers or deregisters a consumer.
    registered_consumer_id: list[str] | str | None = field(
        default=None, metadata=_jvm("registeredConsumerId")
    )
    #: efo: whether ``registered_consumer_id`` gives names or ARNs (``registeredConsumerIdType``).
    registered_consumer_id_type: ConsumerIdType | None = field(
        default=None, metadata=_jvm("registeredConsumerIdType", choices=ConsumerIdType)
    )

    _SIDE = "source"

    def __post_init__(self) -> None:
        """Checks every field, the JVM's rules between them and the offsets' streams, then, with enhanced
        fan-out, the consumer names and registered consumer ids against the streams as the JVM does (with
        polling the JVM ignores them). Those stay here, not in the registry: they count and measure the
        values given."""
        super().__post_init__()
        if self.consumer_mode is not ConsumerMode.EFO:
            return
        streams = self._streams()
        if self.registered_consumer_id is not None:
            self._check_registered(streams)
            return
        names = None if self.consumer_name is None else self._jvm_value("consumer_name").split(",")
        if names is not None and len(names) not in (1, len(streams)):
            raise self._refusal(
                "consumer_name",
                f"it names {len(names)} consumers for {len(streams)} streams; give one name for all streams, "
                "or one per stream in the order of stream_names",
            )
        given_prefix = self.consumer_name_prefix
        prefix = _DEFAULT_CONSUMER_NAME_PREFIX if given_prefix is None else given_prefix.strip(_JVM_TRIMMED)
        query_id_length, max_length = _CONSUMER_NAMES["queryIdLength"], _CONSUMER_NAMES["maxLength"]
        longest = len(prefix) + (max(map(len, names)) if names else query_id_length)  # unnamed: query id
        if longest > max_length:
            raise self._refusal(
                "consumer_name" if given_prefix is None else "consumer_name_prefix",
                f"with the {len(prefix)}-character prefix the longest consumer name is "
                f"{longest} characters long; Kinesis allows at most {max_length} "
                f"(without consumer_name the name is the query's id, {query_id_length} characters)",
            )

    def _check_registered(self, streams: list[str]) -> None:
        """A registered consumer: an id per stream (or one name for all), each a name or an ARN as
        ``registered_consumer_id_type`` says, as the JVM checks them (the fields of the query's own consumer
        it excludes are the registry's rules)."""
        ids = self._jvm_value("registered_consumer_id").split(",")
        by_arn = self.registered_consumer_id_type is ConsumerIdType.ARN
        if len(ids) != len(streams) and (by_arn or len(ids) != 1):
            each = "one consumer ARN per stream" if by_arn else "one name for all streams, or one per stream"
            raise self._refusal(
                "registered_consumer_id",
                f"it names {len(ids)} consumers for {len(streams)} streams; give {each}",
            )
        for consumer in ids:
            if by_arn != consumer.startswith("arn:"):
                kind = "ConsumerIdType.ARN" if consumer.startswith("arn:") else "ConsumerIdType.NAME"
                raise self._refusal(
                    "registered_consumer_id", f"{consumer!r} needs registered_consumer_id_type={kind}"
                )


@_builder
class KinesisBatchReadOptions(_KinesisReadOptions):
    """The options of ``spark.read.format("kinesis")``, a batch read of a bounded range of the streams
    (docs/guides/batch-reads.md): from ``initial_position`` (``trim_horizon`` when ``None``) to
    ``end_position`` (``latest`` when ``None``). It takes the connection, credential and reading options of
    :class:`KinesisSourceOptions`, but none of a stream's own (prefetching, trigger limits, enhanced
    fan-out), which the JVM refuses at ``.load()`` (``KINESIS_OPTION_NOT_IN_BATCH_READ``)::

        incident = KinesisBatchReadOptions(
            stream_names="orders",
            region="eu-west-1",
            initial_position=datetime(2020, 6, 25, 17, 0, tzinfo=timezone.utc),
            end_position=datetime(2020, 6, 25, 17, 30, tzinfo=timezone.utc),
        )
        rows = spark.read.format("kinesis").options(**incident.to_options()).load()

    A streaming query's offset (``query.lastProgress["sources"][0]["endOffset"]``) as ``end_position``
    reads what that query read; as ``initial_position``, what came after it.

    :param stream_names: the streams to read (``streamName``), as a list or a comma-separated string;
        required
    """

    #: Where the read ends (``endPosition``): :attr:`EndPosition.LATEST` (what had arrived when a query
    #: runs the read), a timezone-aware datetime for ``at_timestamp`` (the records that arrived before it),
    #: or a streaming query's offset (its progress's ``endOffset``, JSON text or a dict: up to and
    #: including its positions). An end before the start is refused: here for two datetimes, by the JVM
    #: at ``.load()`` for two offsets.
    end_position: EndPosition | dt.datetime | str | Mapping[str, Any] | None = field(
        default=None, metadata=_jvm("endPosition", choices=EndPosition)
    )

    _SIDE = "batch"

    def __post_init__(self) -> None:
        """Checks every field, the JVM's rules between them and the offsets' streams, then what the JVM
        refuses of a batch read: enhanced fan-out, and an ``at_timestamp`` end before an ``at_timestamp``
        start (which stays here: it compares the two datetimes)."""
        super().__post_init__()
        if self.consumer_mode is ConsumerMode.EFO:
            # The JVM's condition and parameters for it (KINESIS_OPTION_NOT_IN_BATCH_READ), as .load() says.
            reason = (
                "a batch read polls the range it reads; an enhanced fan-out subscription pushes records as "
                "they come, with no end to stop at, and would need a registered consumer"
            )
            raise KinesisOptionError(
                f"consumer_mode (option consumerMode) is {self.consumer_mode!r}: {reason}; leave it None or "
                "give ConsumerMode.POLLING, or read with spark.readStream",
                condition="KINESIS_OPTION_NOT_IN_BATCH_READ",
                message_parameters={"key": "consumerMode", "reason": reason},
            )
        start, end = self.initial_position, self.end_position
        if (
            isinstance(start, dt.datetime)
            and isinstance(end, dt.datetime)
            and _epoch_ms(end) < _epoch_ms(start)
        ):
            raise self._refusal(
                "end_position",
                f"it is before initial_position ({start!r}): the read would end before it starts",
            )


@_builder
class KinesisSinkOptions(_KinesisOptions):
    """The options of ``df.write.format("kinesis")`` and ``df.writeStream.format("kinesis")``; the sink
    table of docs/reference/options.md says what each does. ``stream_name`` may be left out when the
    DataFrame has a ``stream`` column.
    """

    #: The one stream rows without a ``stream`` column (or with a null one) go to (``streamName``).
    stream_name: str | None = field(default=None, metadata=_jvm("streamName", one_stream=True))
    #: Instead of ``stream_name``: that stream's ARN (``streamARN``), which every write then names it by.
    stream_arn: str | None = field(default=None, metadata=_jvm("streamARN", one_stream=True))
    #: What to do with a row whose data is null (``nullData``).
    null_data: NullData | None = field(default=None, metadata=_jvm("nullData", choices=NullData))
    #: PutRecords requests one task has under way at once (``maxInFlightRequests``), 1 to 64.
    max_in_flight_requests: int | None = field(default=None, metadata=_jvm("maxInFlightRequests"))
    #: How long records Kinesis turns down are tried again before the task fails (``writeRetryTimeout``).
    write_retry_timeout: dt.timedelta | None = field(default=None, metadata=_jvm("writeRetryTimeout"))
    #: Whether rows bound for one shard are packed into KPL aggregated records (``kplAggregation``).
    kpl_aggregation: bool | None = field(default=None, metadata=_jvm("kplAggregation"))
    #: The most bytes of one aggregated record (``kplAggregationMaxSize``), 1kb to 1mb.
    kpl_aggregation_max_size: int | str | None = field(default=None, metadata=_jvm("kplAggregationMaxSize"))

    _SIDE = "sink"
