"""Typed option builders: every option of the connector, in Python naming, checked in Python.

``to_options()`` gives the JVM's own keys and string values::

    opts = KinesisSourceOptions(stream_names=["orders"], region="eu-west-1",
                                initial_position=InitialPosition.TRIM_HORIZON,
                                max_fetch_duration=timedelta(milliseconds=200))
    df = spark.readStream.format("kinesis").options(**opts.to_options()).load()

A field left ``None`` is not sent, so the JVM's documented default applies.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, ClassVar

__all__ = [
    "JVM_DEFAULTS",
    "ConsumerMode",
    "InitialPosition",
    "KinesisSinkOptions",
    "KinesisSourceOptions",
    "NullData",
]


class InitialPosition(str, Enum):
    """Where a new query starts; a timezone-aware :class:`datetime.datetime` means ``at_timestamp``."""

    LATEST = "latest"
    TRIM_HORIZON = "trim_horizon"
    EARLIEST = "earliest"


class ConsumerMode(str, Enum):
    """How the source reads: polling with GetRecords, or enhanced fan-out."""

    POLLING = "polling"
    EFO = "efo"


class NullData(str, Enum):
    """What the sink does with a row whose data is null."""

    FAIL = "fail"
    SKIP = "skip"


_NAME = re.compile(r"[a-zA-Z0-9_.-]{1,128}")
_PREFIX = re.compile(r"[a-zA-Z0-9_.-]*")
_ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+")
_SESSION_NAME = re.compile(r"[\w+=,.@-]{2,64}")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(b|k|kb|m|mb|g|gb|t|tb)?", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024**2, "mb": 1024**2, "g": 1024**3, "gb": 1024**3}
_UNITS |= {"t": 1024**4, "tb": 1024**4}

#: A check returns what is wrong with a value, or None.
_Check = Callable[[Any], "str | None"]


def _opt(jvm: str, check: _Check | None = None, *, secret: bool = False) -> Any:
    """A field that is the JVM option ``jvm``, unset (None) by default."""
    return field(default=None, repr=not secret, metadata={"jvm": jvm, "check": check, "secret": secret})


def _names(value: Any) -> list[str]:
    return [n.strip() for n in value.split(",")] if isinstance(value, str) else list(value)


def _stream_names(value: Any) -> str | None:
    names = _names(value)
    bad = [n for n in names if not _NAME.fullmatch(n)]
    if not names or bad:
        return (
            f"{bad[0]!r} is not a stream name (1 to 128 letters, digits, '_', '.' or '-')"
            if bad
            else "no name"
        )
    return "a stream is named twice" if len(set(names)) != len(names) else None


def _one_stream(value: Any) -> str | None:
    return None if isinstance(value, str) and _NAME.fullmatch(value) else "expected one stream name"


def _consumer_names(value: Any) -> str | None:
    bad = [n for n in _names(value) if not _NAME.fullmatch(n)]
    return f"{bad[0]!r} is not a consumer name (letters, digits, '_', '.' or '-')" if bad else None


def _matches(pattern: re.Pattern[str], what: str) -> _Check:
    return lambda v: None if isinstance(v, str) and pattern.fullmatch(v) else f"expected {what}"


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else "expected a non-empty string"


def _url(value: Any) -> str | None:
    ok = isinstance(value, str) and re.fullmatch(r"(https?://)?[^\s/:]+(:\d+)?(/\S*)?", value) is not None
    return None if ok else "expected an http(s) URL"


def _int(low: int, high: int) -> _Check:
    def check(v: Any) -> str | None:
        ok = isinstance(v, int) and not isinstance(v, bool) and low <= v <= high
        return None if ok else f"expected a whole number from {low} to {high}"

    return check


def _flag(value: Any) -> str | None:
    return None if isinstance(value, bool) else "expected True or False"


def _enum(kind: type[Enum]) -> _Check:
    return lambda v: None if isinstance(v, kind) else f"expected a {kind.__name__}"


def _duration(low: dt.timedelta, high: dt.timedelta | None = None) -> _Check:
    def check(v: Any) -> str | None:
        if not isinstance(v, dt.timedelta):
            return "expected a datetime.timedelta"
        if v < low or (high is not None and v > high):
            return f"expected from {_millis(low)}" + (f" to {_millis(high)}" if high else " on")
        return None

    return check


def _bytes(value: int | str) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    match = _SIZE.fullmatch(value.strip()) if isinstance(value, str) else None
    return round(float(match.group(1)) * _UNITS[(match.group(2) or "").lower()]) if match else None


def _size(low: int, high: int | None = None) -> _Check:
    def check(v: Any) -> str | None:
        n = _bytes(v)
        if n is None:
            return "expected bytes as an int, or a size such as '64mb'"
        if n < low or (high is not None and n > high):
            return (
                f"expected from {low} to {high} bytes"
                if high is not None
                else f"expected at least {low} bytes"
            )
        return None

    return check


def _rate(value: Any) -> str | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 2.0
    return None if ok else "expected MB/s above 0 and at most 2.0"


def _position(value: Any) -> str | None:
    if isinstance(value, InitialPosition):
        return None
    if isinstance(value, dt.datetime):
        return None if value.tzinfo is not None else "a datetime needs a time zone (e.g. tzinfo=timezone.utc)"
    return "expected an InitialPosition or a timezone-aware datetime"


def _millis(value: dt.timedelta) -> str:
    ms = round(value.total_seconds() * 1000)
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def _jvm_value(value: Any) -> str:
    """A field's value as the JVM option takes it."""
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.timedelta):
        return _millis(value)
    if isinstance(value, dt.datetime):
        instant = value.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        return json.dumps({"at_timestamp": instant})
    if isinstance(value, (list, tuple)):
        return ",".join(str(v).strip() for v in value)
    return str(value)


#: The JVM's defaults of the options that have one.
JVM_DEFAULTS: dict[str, str] = {
    "roleSessionName": "spark-kinesis",
    "initialPosition": "latest",
    "maxRecordsPerFetch": "10000",
    "shardFetchInterval": "1s",
    "maxShardsPerDescribe": "100",
    "failOnDataLoss": "true",
    "maxFetchRate": "1.0",
    "minFetchPeriod": "400ms",
    "maxFetchDuration": "10s",
    "fetchBufferSize": "20gb",
    "shardsPerTask": "5",
    "coalesceThresholdBlockSize": "10000000",
    "coalesceBinSize": "128000000",
    "consumerMode": "polling",
    "consumerNamePrefix": "spark-kinesis_",
    "consumerRefreshInterval": "300s",
    "requireConsumerDeregistration": "false",
    "nullData": "fail",
    "maxInFlightRequests": "4",
    "writeRetryTimeout": "2m",
    "kplAggregation": "false",
    "kplAggregationMaxSize": "50kb",
}


@dataclass(frozen=True, kw_only=True)
class _KinesisOptions:
    """What reading and writing share: where Kinesis is, and as whom the connector calls it."""

    region: str | None = _opt("region", _text)
    endpoint: str | None = _opt("endpoint", _url)
    aws_access_key: str | None = _opt("awsAccessKey", _text)
    aws_secret_key: str | None = _opt("awsSecretKey", _text, secret=True)
    aws_session_token: str | None = _opt("awsSessionToken", _text, secret=True)
    role_arn: str | None = _opt(
        "roleArn", _matches(_ROLE_ARN, "an IAM role ARN (arn:aws:iam::<account>:role/<name>)")
    )
    role_external_id: str | None = _opt("roleExternalId", _text)
    role_session_name: str | None = _opt(
        "roleSessionName", _matches(_SESSION_NAME, "2 to 64 of letters, digits, +=,.@-_")
    )
    sts_endpoint: str | None = _opt("stsEndpoint", _url)

    _required: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                if f.name in self._required:
                    raise ValueError(f"{f.name} (option {f.metadata['jvm']}) is required")
                continue
            problem = f.metadata["check"](value) if f.metadata["check"] else None
            if problem:
                shown = "*****" if f.metadata["secret"] else repr(value)
                raise ValueError(f"{f.name} (option {f.metadata['jvm']}) is {shown}: {problem}")

    def to_options(self) -> dict[str, str]:
        """The JVM option keys and string values of the fields that are set."""
        return {
            f.metadata["jvm"]: _jvm_value(getattr(self, f.name))
            for f in fields(self)
            if getattr(self, f.name) is not None
        }

    @classmethod
    def jvm_keys(cls) -> list[str]:
        """Every JVM option key this builder can give."""
        return [f.metadata["jvm"] for f in fields(cls)]

    @classmethod
    def jvm_defaults(cls) -> dict[str, str]:
        """Each JVM option key of this builder and the default the JVM applies when the field is None, as the
        README documents it ("" for none). The tests check it against the JVM's own registry."""
        return {key: JVM_DEFAULTS.get(key, "") for key in cls.jvm_keys()}


@dataclass(frozen=True, kw_only=True)
class KinesisSourceOptions(_KinesisOptions):
    """The options of ``spark.readStream.format("kinesis")``; see the README's option table for each.

    ``stream_names`` is required; ``initial_position`` takes an :class:`InitialPosition` or a
    timezone-aware datetime (``at_timestamp``); durations are :class:`datetime.timedelta`; sizes are bytes
    as an ``int`` or a size string such as ``"2gb"``.
    """

    stream_names: list[str] | str | None = _opt("streamName", _stream_names)
    initial_position: InitialPosition | dt.datetime | None = _opt("initialPosition", _position)
    max_records_per_fetch: int | None = _opt("maxRecordsPerFetch", _int(1, 10000))
    shard_fetch_interval: dt.timedelta | None = _opt("shardFetchInterval", _duration(dt.timedelta(0)))
    max_shards_per_describe: int | None = _opt("maxShardsPerDescribe", _int(1, 10000))
    fail_on_data_loss: bool | None = _opt("failOnDataLoss", _flag)
    max_fetch_rate: float | None = _opt("maxFetchRate", _rate)
    min_fetch_period: dt.timedelta | None = _opt("minFetchPeriod", _duration(dt.timedelta(milliseconds=200)))
    max_fetch_duration: dt.timedelta | None = _opt(
        "maxFetchDuration", _duration(dt.timedelta(milliseconds=1))
    )
    fetch_buffer_size: int | str | None = _opt("fetchBufferSize", _size(1))
    shards_per_task: int | None = _opt("shardsPerTask", _int(1, 1000))
    coalesce_threshold_block_size: int | None = _opt("coalesceThresholdBlockSize", _int(1, 2**63 - 1))
    coalesce_bin_size: int | None = _opt("coalesceBinSize", _int(1, 2**63 - 1))
    max_records_per_trigger: int | None = _opt("maxRecordsPerTrigger", _int(1, 2**63 - 1))
    max_bytes_per_trigger: int | str | None = _opt("maxBytesPerTrigger", _size(1))
    consumer_mode: ConsumerMode | None = _opt("consumerMode", _enum(ConsumerMode))
    consumer_name: list[str] | str | None = _opt("consumerName", _consumer_names)
    consumer_name_prefix: str | None = _opt(
        "consumerNamePrefix", _matches(_PREFIX, "letters, digits, '_', '.' or '-'")
    )
    consumer_refresh_interval: dt.timedelta | None = _opt(
        "consumerRefreshInterval", _duration(dt.timedelta(seconds=1), dt.timedelta(hours=1))
    )
    require_consumer_deregistration: bool | None = _opt("requireConsumerDeregistration", _flag)

    _required: ClassVar[tuple[str, ...]] = ("stream_names",)


@dataclass(frozen=True, kw_only=True)
class KinesisSinkOptions(_KinesisOptions):
    """The options of ``df.write`` / ``df.writeStream`` ``.format("kinesis")``; see the README's sink table.

    ``stream_name`` may be left out when the DataFrame has a ``stream`` column.
    """

    stream_name: str | None = _opt("streamName", _one_stream)
    null_data: NullData | None = _opt("nullData", _enum(NullData))
    max_in_flight_requests: int | None = _opt("maxInFlightRequests", _int(1, 64))
    write_retry_timeout: dt.timedelta | None = _opt("writeRetryTimeout", _duration(dt.timedelta(0)))
    kpl_aggregation: bool | None = _opt("kplAggregation", _flag)
    kpl_aggregation_max_size: int | str | None = _opt("kplAggregationMaxSize", _size(1024, 1024 * 1024))
