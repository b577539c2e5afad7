# SPDX-License-Identifier: Apache-2.0
"""The typed option builders, without Spark: the exact strings they give the JVM, what they refuse and how
they say so, that secrets stay hidden, and that their keys and defaults are the generated tables of
docs/reference/options.md; then, with Spark, that the JVM judges every value as they do."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from enum import Enum
from pathlib import Path
from typing import Any

import pyspark_kinesis
import pytest
from pyspark.sql import SparkSession
from pyspark_kinesis import KinesisOptionError, _jvm
from pyspark_kinesis.options import (
    ConsumerIdType,
    ConsumerMode,
    EndPosition,
    InitialPosition,
    KinesisBatchReadOptions,
    KinesisSinkOptions,
    KinesisSourceOptions,
    NullData,
    ShardSequenceNumbers,
)

# The builders behave the same on every Spark line and Python: dev/test runs these on each.
pytestmark = pytest.mark.line_smoke

OPTIONS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "options.md"
PDT = dt.timezone(dt.timedelta(hours=-7))

AWS_FIELDS: dict[str, Any] = {
    "region": "eu-west-1",
    "endpoint": "https://kinesis.eu-west-1.amazonaws.com",
    "aws_access_key": "AKIAEXAMPLE0000",
    "aws_secret_key": "secret-value-1",
    "aws_session_token": "token-value-1",
    "role_arn": "arn:aws:iam::123456789012:role/reader",
    "role_external_id": "ext-1",
    "role_session_name": "orders-reader",
    "sts_endpoint": "https://sts.eu-west-1.amazonaws.com",
    "outage_timeout": dt.timedelta(minutes=30),
}
AWS_OPTIONS = {
    "region": "eu-west-1",
    "endpoint": "https://kinesis.eu-west-1.amazonaws.com",
    "awsAccessKey": "AKIAEXAMPLE0000",
    "awsSecretKey": "secret-value-1",
    "awsSessionToken": "token-value-1",
    "roleArn": "arn:aws:iam::123456789012:role/reader",
    "roleExternalId": "ext-1",
    "roleSessionName": "orders-reader",
    "stsEndpoint": "https://sts.eu-west-1.amazonaws.com",
    "outageTimeout": "30m",
}

EVERY_SOURCE_FIELD: dict[str, Any] = {
    **AWS_FIELDS,
    "stream_names": ["orders", "clicks"],
    "initial_position": dt.datetime(2020, 6, 25, 10, 23, 45, tzinfo=PDT),
    "max_records_per_fetch": 5000,
    "shard_fetch_interval": dt.timedelta(seconds=2),
    "max_shards_per_describe": 50,
    "fail_on_data_loss": False,
    "max_fetch_rate": 1.5,
    "min_fetch_period": dt.timedelta(milliseconds=210),
    "max_fetch_duration": dt.timedelta(milliseconds=200),
    "fetch_buffer_size": "2gb",
    "shards_per_task": 10,
    "coalesce_threshold_block_size": 1000,
    "coalesce_bin_size": 2000,
    "max_records_per_trigger": 100000,
    "max_bytes_per_trigger": 256 * 1024 * 1024,
    "consumer_mode": ConsumerMode.EFO,
    "consumer_name": ["orders-reader", "clicks-reader"],
    "consumer_name_prefix": "databricks_",
    "consumer_refresh_interval": dt.timedelta(minutes=5),
    "require_consumer_deregistration": True,
}
EVERY_SOURCE_OPTION = {
    **AWS_OPTIONS,
    "streamName": "orders,clicks",
    "initialPosition": '{"at_timestamp": "2020-06-25T17:23:45Z"}',
    "maxRecordsPerFetch": "5000",
    "shardFetchInterval": "2s",
    "maxShardsPerDescribe": "50",
    "failOnDataLoss": "false",
    "maxFetchRate": "1.5",
    "minFetchPeriod": "210ms",
    "maxFetchDuration": "200ms",
    "fetchBufferSize": "2gb",
    "shardsPerTask": "10",
    "coalesceThresholdBlockSize": "1000",
    "coalesceBinSize": "2000",
    "maxRecordsPerTrigger": "100000",
    "maxBytesPerTrigger": "268435456",
    "consumerMode": "efo",
    "consumerName": "orders-reader,clicks-reader",
    "consumerNamePrefix": "databricks_",
    "consumerRefreshInterval": "5m",
    "requireConsumerDeregistration": "true",
}

# What the fields above cannot say at once: streams named by ARN, read through consumers registered
# beforehand (which excludes the query's own consumer's names, prefix and deregistration).
BY_ARN_SOURCE_FIELD: dict[str, Any] = {
    "stream_arns": [
        "arn:aws:kinesis:eu-west-1:111122223333:stream/orders",
        "arn:aws:kinesis:eu-west-1:111122223333:stream/clicks",
    ],
    "consumer_mode": ConsumerMode.EFO,
    "registered_consumer_id": [
        "arn:aws:kinesis:eu-west-1:111122223333:stream/orders/consumer/admin:1593105825",
        "arn:aws:kinesis:eu-west-1:111122223333:stream/clicks/consumer/admin:1593105826",
    ],
    "registered_consumer_id_type": ConsumerIdType.ARN,
    "max_partitions": 3,
}
BY_ARN_SOURCE_OPTION = {
    "streamARN": "arn:aws:kinesis:eu-west-1:111122223333:stream/orders,"
    "arn:aws:kinesis:eu-west-1:111122223333:stream/clicks",
    "consumerMode": "efo",
    "registeredConsumerId": "arn:aws:kinesis:eu-west-1:111122223333:stream/orders/consumer/admin:1593105825,"
    "arn:aws:kinesis:eu-west-1:111122223333:stream/clicks/consumer/admin:1593105826",
    "registeredConsumerIdType": "arn",
    "maxPartitions": "3",
}

# A batch read takes what reading and the stream share, and where the read ends.
EVERY_BATCH_FIELD: dict[str, Any] = {
    **AWS_FIELDS,
    "stream_names": ["orders", "clicks"],
    "initial_position": dt.datetime(2020, 6, 25, 10, 23, 45, tzinfo=PDT),
    "end_position": dt.datetime(2020, 6, 26, 0, 0, 0, 250000, tzinfo=dt.timezone.utc),
    "max_records_per_fetch": 5000,
    "max_shards_per_describe": 50,
    "fail_on_data_loss": False,
    "max_fetch_rate": 1.5,
    "min_fetch_period": dt.timedelta(milliseconds=210),
    "consumer_mode": ConsumerMode.POLLING,
    "max_partitions": 3,
}
EVERY_BATCH_OPTION = {
    **AWS_OPTIONS,
    "streamName": "orders,clicks",
    "initialPosition": '{"at_timestamp": "2020-06-25T17:23:45Z"}',
    "endPosition": '{"at_timestamp": "2020-06-26T00:00:00.250Z"}',
    "maxRecordsPerFetch": "5000",
    "maxShardsPerDescribe": "50",
    "failOnDataLoss": "false",
    "maxFetchRate": "1.5",
    "minFetchPeriod": "210ms",
    "consumerMode": "polling",
    "maxPartitions": "3",
}
# What a streaming read takes and a batch read refuses at .load() (KINESIS_OPTION_NOT_IN_BATCH_READ).
STREAMING_ONLY_OPTIONS = {
    "shardFetchInterval",
    "maxFetchDuration",
    "fetchBufferSize",
    "shardsPerTask",
    "coalesceThresholdBlockSize",
    "coalesceBinSize",
    "maxRecordsPerTrigger",
    "maxBytesPerTrigger",
    "consumerName",
    "consumerNamePrefix",
    "consumerRefreshInterval",
    "requireConsumerDeregistration",
    "registeredConsumerId",
    "registeredConsumerIdType",
}

# Streaming queries' offsets as their progress shows them (endOffset), of a stream named "s": every version
# and kind of position the JVM reads.
OFFSET_V2 = (
    '{"v":2,"streams":{"s":{"arn":"arn:aws:kinesis:us-east-1:123456789012:stream/s","created":1593105825000,'
    '"shards":{"shardId-000000000000":{"kind":"after","seq":"49590338271490256608559692538361571095921575989136588898"},'
    '"shardId-000000000001":{"kind":"trim_horizon"}}}}}'
)
OFFSET_V3 = (
    '{"v":3,"streams":{"s":{"shards":{"shardId-000000000000":{"kind":"after","seq":"4959","sub":3},'
    '"shardId-000000000001":{"kind":"at_timestamp","ms":1593105825000},"shardId-000000000002":{"kind":"shard_end"}}}}}'
)
OFFSET_V1 = '{"v":1,"streams":{"s":{"shardId-000000000000":{"kind":"after","seq":"1"}}}}'

EVERY_SINK_FIELD: dict[str, Any] = {
    **AWS_FIELDS,
    "stream_name": "orders",
    "null_data": NullData.SKIP,
    "max_in_flight_requests": 8,
    "write_retry_timeout": dt.timedelta(minutes=5),
    "kpl_aggregation": True,
    "kpl_aggregation_max_size": "64kb",
}
EVERY_SINK_OPTION = {
    **AWS_OPTIONS,
    "streamName": "orders",
    "nullData": "skip",
    "maxInFlightRequests": "8",
    "writeRetryTimeout": "5m",
    "kplAggregation": "true",
    "kplAggregationMaxSize": "64kb",
}


def documented_table(marker: str) -> dict[str, str]:
    """The generated option table of docs/reference/options.md between `<!-- {marker}:start` and
    `<!-- {marker}:end -->`: key to default ("" for none)."""
    text = OPTIONS_PAGE.read_text(encoding="utf-8")
    table = text[text.index(f"<!-- {marker}:start") : text.index(f"<!-- {marker}:end -->")]
    rows = re.findall(r"^\| `([^`]+)` \| (\S*) \|", table, re.MULTILINE)
    return {key: default.strip("`") if default != "required" else "" for key, default in rows}


# ---- what the JVM is given ----


def test_every_field_becomes_its_jvm_option_as_the_jvm_spells_it() -> None:
    assert KinesisSourceOptions(**EVERY_SOURCE_FIELD).to_options() == EVERY_SOURCE_OPTION
    assert KinesisSourceOptions(**BY_ARN_SOURCE_FIELD).to_options() == BY_ARN_SOURCE_OPTION
    by_arn = KinesisBatchReadOptions(stream_arns=BY_ARN_SOURCE_FIELD["stream_arns"]).to_options()
    assert by_arn == {"streamARN": BY_ARN_SOURCE_OPTION["streamARN"]}
    sink = KinesisSinkOptions(stream_arn="arn:aws:kinesis:eu-west-1:111122223333:stream/orders")
    assert sink.to_options() == {"streamARN": "arn:aws:kinesis:eu-west-1:111122223333:stream/orders"}
    assert KinesisBatchReadOptions(**EVERY_BATCH_FIELD).to_options() == EVERY_BATCH_OPTION
    assert KinesisSinkOptions(**EVERY_SINK_FIELD).to_options() == EVERY_SINK_OPTION


def test_fields_left_out_are_not_sent_so_the_jvm_defaults_apply() -> None:
    assert KinesisSourceOptions(stream_names="orders").to_options() == {"streamName": "orders"}
    # Not even initialPosition: the registry's default (latest) is a stream's, and a batch read without one
    # starts at trim_horizon.
    assert KinesisBatchReadOptions(stream_names="orders").to_options() == {"streamName": "orders"}
    assert KinesisSinkOptions().to_options() == {}


def test_a_batch_read_takes_no_option_of_a_stream_and_a_stream_no_end() -> None:
    source, batch = set(KinesisSourceOptions.jvm_keys()), set(KinesisBatchReadOptions.jvm_keys())
    assert source - batch == STREAMING_ONLY_OPTIONS
    assert batch - source == {"endPosition"}
    streaming_only = [
        f.name for f in dataclasses.fields(KinesisSourceOptions) if f.metadata["jvm"].key not in batch
    ]
    assert len(streaming_only) == len(STREAMING_ONLY_OPTIONS)
    for name in streaming_only:
        with pytest.raises(TypeError, match=name):
            value = {**EVERY_SOURCE_FIELD, **BY_ARN_SOURCE_FIELD}[name]
            KinesisBatchReadOptions(stream_names="s", **{name: value})
    with pytest.raises(TypeError, match="end_position"):
        KinesisSourceOptions(stream_names="s", end_position=EndPosition.LATEST)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("position", "expected"),
    [
        (InitialPosition.LATEST, "latest"),
        (InitialPosition.TRIM_HORIZON, "trim_horizon"),
        (InitialPosition.EARLIEST, "earliest"),
        (
            dt.datetime(2020, 6, 25, 17, 23, 45, tzinfo=dt.timezone.utc),
            '{"at_timestamp": "2020-06-25T17:23:45Z"}',
        ),
        (
            dt.datetime(2020, 6, 25, 10, 23, 45, 120000, tzinfo=PDT),
            '{"at_timestamp": "2020-06-25T17:23:45.120Z"}',
        ),
        (dt.datetime(2020, 6, 26, 0, 0, 0, 5, tzinfo=PDT), '{"at_timestamp": "2020-06-26T07:00:00.000005Z"}'),
    ],
)
def test_initial_position_is_a_member_or_at_timestamp_json_with_a_utc_instant(
    position: InitialPosition | dt.datetime, expected: str
) -> None:
    given = KinesisSourceOptions(stream_names="s", initial_position=position).to_options()["initialPosition"]
    assert given == expected
    if isinstance(position, dt.datetime):
        instant = json.loads(given)["at_timestamp"]
        assert dt.datetime.fromisoformat(instant.replace("Z", "+00:00")) == position


@pytest.mark.parametrize(
    ("position", "expected"),
    [
        (EndPosition.LATEST, "latest"),
        (
            dt.datetime(2020, 6, 25, 10, 23, 45, 120000, tzinfo=PDT),
            '{"at_timestamp": "2020-06-25T17:23:45.120Z"}',
        ),
    ],
)
def test_end_position_is_latest_or_at_timestamp_json_with_a_utc_instant(
    position: EndPosition | dt.datetime, expected: str
) -> None:
    given = KinesisBatchReadOptions(stream_names="s", end_position=position).to_options()
    assert given == {"streamName": "s", "endPosition": expected}


@pytest.mark.parametrize("offset", [OFFSET_V1, OFFSET_V2, OFFSET_V3, '{"v":2,"streams":{}}'])
@pytest.mark.parametrize(
    ("builder", "name", "option"),
    [
        (KinesisSourceOptions, "initial_position", "initialPosition"),
        (KinesisBatchReadOptions, "initial_position", "initialPosition"),
        (KinesisBatchReadOptions, "end_position", "endPosition"),
    ],
)
def test_a_query_offset_is_a_position_given_as_its_json_or_as_a_dict(
    builder: type[KinesisSourceOptions | KinesisBatchReadOptions], name: str, option: str, offset: str
) -> None:
    # As PySpark shows it: JSON text (lastProgress's sources[0]["endOffset"] on 4.x, or SourceProgress's
    # endOffset) or, on 3.5, a dict (its lastProgress is json.loads of the progress).
    assert builder(stream_names="s", **{name: offset}).to_options()[option] == offset
    assert builder(stream_names="s", **{name: f"\n {offset} "}).to_options()[option] == offset
    from_dict = builder(stream_names="s", **{name: json.loads(offset)}).to_options()[option]
    assert json.loads(from_dict) == json.loads(offset)


def test_sequence_numbers_per_shard_start_shards_at_or_after_records_in_streaming_and_batch_reads() -> None:
    at = InitialPosition.at_sequence_numbers({"s": {"shardId-000000000000": "4960"}})
    assert at == ShardSequenceNumbers(at={"s": {"shardId-000000000000": "4960"}})
    both = ShardSequenceNumbers(
        at={"s": {"shardId-000000000000": "4960"}}, after={"s": {"shardId-000000000001": "4970"}}
    )
    for builder in (KinesisSourceOptions, KinesisBatchReadOptions):
        given = builder(stream_names="s", initial_position=at).to_options()["initialPosition"]
        assert given == '{"at_sequence_number":{"s":{"shardId-000000000000":"4960"}}}'
        assert json.loads(
            builder(stream_names="s", initial_position=both).to_options()["initialPosition"]
        ) == {
            "at_sequence_number": {"s": {"shardId-000000000000": "4960"}},
            "after_sequence_number": {"s": {"shardId-000000000001": "4970"}},
        }
    after = InitialPosition.after_sequence_numbers({"s": {"shardId-000000000001": "4970"}})
    assert after.streams == ["s"] and not after.at


@pytest.mark.parametrize(
    ("at", "after", "problem"),
    [
        ({"s": {"shardId-0": 4960}}, {}, "which is no sequence number"),
        ({"s": {"shardId-0": "49x"}}, {}, "which is no sequence number"),
        ({"s": ["shardId-0"]}, {}, "expected a stream name and a dict"),
        ("4960", {}, "expected a dict of stream names"),
        ({}, {}, "names no shard"),
        ({"s": {"shardId-0": "1"}}, {"s": {"shardId-0": "2"}}, "in both at and after"),
    ],
)
def test_sequence_numbers_that_cannot_be_are_refused_saying_what_is_wrong(
    at: Any, after: Any, problem: str
) -> None:
    with pytest.raises(KinesisOptionError) as refused:
        ShardSequenceNumbers(at=at, after=after)
    assert problem in str(refused.value)


def test_sequence_numbers_are_no_end_and_name_only_the_streams_read() -> None:
    at = InitialPosition.at_sequence_numbers({"other": {"shardId-0": "1"}})
    with pytest.raises(KinesisOptionError) as refused:
        KinesisSourceOptions(stream_names="s", initial_position=at)
    assert "it has positions in stream 'other'" in str(refused.value)
    with pytest.raises(KinesisOptionError) as refused:
        KinesisBatchReadOptions(stream_names="other", end_position=at)  # type: ignore[arg-type]
    assert "not where a read ends" in str(refused.value)
    with pytest.raises(KinesisOptionError) as refused:
        KinesisSourceOptions(stream_names="s", initial_position='{"at_sequence_number": {"s": {"x": "1"}}}')
    assert "InitialPosition.at_sequence_numbers" in str(refused.value)


def test_max_partitions_is_sent_as_maxpartitions_and_not_with_shards_per_task() -> None:
    assert KinesisSourceOptions(stream_names="s", max_partitions=8).to_options()["maxPartitions"] == "8"
    assert KinesisBatchReadOptions(stream_names="s", max_partitions=2).to_options()["maxPartitions"] == "2"
    with pytest.raises(KinesisOptionError) as refused:
        KinesisSourceOptions(stream_names="s", max_partitions=8, shards_per_task=5)
    assert str(refused.value).startswith(
        "[KINESIS_OPTIONS_CONFLICT] max_partitions (option maxPartitions) is 8: it cannot be given with"
    )
    assert refused.value.getMessageParameters() == {
        "key": "maxPartitions",
        "other": "shardsPerTask",
        "reason": refused.value.getMessageParameters()["reason"],
    }, "the JVM's condition and parameters for options that exclude each other"
    with pytest.raises(KinesisOptionError):
        KinesisSourceOptions(stream_names="s", max_partitions=0)


def test_a_batch_read_may_end_where_it_starts_and_at_the_same_millisecond_as_the_jvm_holds_instants() -> None:
    start = dt.datetime(2020, 6, 25, 17, 23, 45, 1900, tzinfo=dt.timezone.utc)
    for end in (start, start + dt.timedelta(hours=1), start - dt.timedelta(microseconds=900)):
        KinesisBatchReadOptions(stream_names="s", initial_position=start, end_position=end)
    offsets = KinesisBatchReadOptions(stream_names="s", initial_position=OFFSET_V2, end_position=OFFSET_V1)
    assert offsets.to_options()["endPosition"] == OFFSET_V1  # two offsets are ordered by the JVM, at .load()


def test_a_naive_datetime_is_refused_rather_than_guessed() -> None:
    with pytest.raises(ValueError) as refused:
        KinesisSourceOptions(stream_names="s", initial_position=dt.datetime(2020, 6, 25, 17, 23, 45))
    assert str(refused.value).startswith(
        "[KINESIS_OPTION_INVALID] initial_position (option initialPosition) is "
        "datetime.datetime(2020, 6, 25, 17, 23, 45): "
        "a datetime without a time zone is ambiguous"
    )


@pytest.mark.parametrize(
    ("duration", "expected"),
    [
        (dt.timedelta(0), "0ms"),
        (dt.timedelta(milliseconds=400), "400ms"),
        (dt.timedelta(milliseconds=1500), "1500ms"),
        (dt.timedelta(seconds=10), "10s"),
        (dt.timedelta(seconds=90), "90s"),
        (dt.timedelta(minutes=2), "2m"),
        (dt.timedelta(hours=1), "1h"),
        (dt.timedelta(days=2), "48h"),
    ],
)
def test_durations_are_whole_units_the_jvm_reads(duration: dt.timedelta, expected: str) -> None:
    assert KinesisSinkOptions(write_retry_timeout=duration).to_options() == {"writeRetryTimeout": expected}


def test_outage_timeout_is_a_duration_of_a_second_or_more_or_inf() -> None:
    assert (
        KinesisSourceOptions(stream_names=["s"], outage_timeout="inf").to_options()["outageTimeout"] == "inf"
    )
    assert KinesisSinkOptions(outage_timeout=dt.timedelta(seconds=1)).to_options() == {"outageTimeout": "1s"}
    for bad in (dt.timedelta(milliseconds=999), "forever", 600):
        with pytest.raises(KinesisOptionError) as refused:
            KinesisSinkOptions(outage_timeout=bad)
        assert "outage_timeout (option outageTimeout)" in str(refused.value) and '"inf"' in str(refused.value)


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (1024, "1024"),
        ("1kb", "1kb"),
        (" 64 KB ", "64kb"),
        ("1_024", "1024"),
        ("0.5mb", "0.5mb"),
        ("1mb", "1mb"),
        ("1m", "1m"),
        (1024 * 1024, "1048576"),
    ],
)
def test_sizes_are_bytes_or_size_strings_with_binary_units(size: int | str, expected: str) -> None:
    assert KinesisSinkOptions(kpl_aggregation_max_size=size).to_options() == {
        "kplAggregationMaxSize": expected
    }


def test_names_are_given_as_a_list_or_comma_separated_and_sent_comma_joined() -> None:
    assert KinesisSourceOptions(stream_names=" orders , clicks").to_options()["streamName"] == "orders,clicks"
    assert KinesisSourceOptions(stream_names=("a", "b.c_d-1")).to_options()["streamName"] == "a,b.c_d-1"
    polling = KinesisSourceOptions(stream_names="a", consumer_name="x, y, z").to_options()
    assert polling["consumerName"] == "x,y,z"  # with polling the JVM ignores consumer names: so does Python
    assert KinesisSourceOptions(stream_names="a", max_fetch_rate=2).to_options()["maxFetchRate"] == "2.0"
    assert (
        KinesisSourceOptions(stream_names="a", consumer_name_prefix="").to_options()["consumerNamePrefix"]
        == ""
    )
    assert KinesisSinkOptions(endpoint="localhost:4566").to_options() == {"endpoint": "localhost:4566"}


# ---- what is refused, and how ----

SOURCE_REFUSALS: list[tuple[dict[str, Any], str, str, str]] = [
    # (fields besides stream_names="a,b", field, option, what the message says is accepted)
    ({"stream_names": "bad name"}, "stream_names", "streamName", "is not a stream name"),
    ({"stream_names": "a," + "x" * 129}, "stream_names", "streamName", "1 to 128 letters"),
    ({"stream_names": "a,b,a"}, "stream_names", "streamName", "a stream is named twice: a"),
    ({"stream_names": "a,,b"}, "stream_names", "streamName", "it has an empty stream name"),
    ({"stream_names": []}, "stream_names", "streamName", "expected a non-empty list of stream names"),
    (
        {"stream_names": None},
        "stream_names",
        "streamName",
        "give it or stream_arns (option streamARN); a read needs the streams it reads",
    ),
    (
        {"stream_names": "a", "stream_arns": "arn:aws:kinesis:eu-west-1:111122223333:stream/a"},
        "stream_names",
        "streamName",
        "it cannot be given with stream_arns='arn:aws:kinesis:eu-west-1:111122223333:stream/a' (option "
        "streamARN): both name the streams to read or write",
    ),
    ({"stream_arns": "a"}, "stream_arns", "streamARN", "'a' is not a stream ARN (arn:aws:kinesis:"),
    (
        {"initial_position": "latest"},
        "initial_position",
        "initialPosition",
        "expected InitialPosition.LATEST",
    ),
    ({"region": ""}, "region", "region", "expected a non-empty string"),
    ({"endpoint": "ftp://kinesis.local"}, "endpoint", "endpoint", "expected an http(s) URL"),
    ({"endpoint": "http://my_host:4566"}, "endpoint", "endpoint", "expected an http(s) URL"),
    ({"endpoint": "http://localhost:x"}, "endpoint", "endpoint", "the port must be a number"),
    ({"sts_endpoint": "not a url"}, "sts_endpoint", "stsEndpoint", "expected an http(s) URL"),
    ({"aws_access_key": 5}, "aws_access_key", "awsAccessKey", "expected a non-empty string"),
    ({"role_arn": "arn:aws:iam::1234:role/x"}, "role_arn", "roleArn", "expected an IAM role ARN"),
    ({"role_external_id": " "}, "role_external_id", "roleExternalId", "expected a non-empty string"),
    ({"role_session_name": "x"}, "role_session_name", "roleSessionName", "2 to 64 of letters"),
    ({"role_session_name": "a b"}, "role_session_name", "roleSessionName", "2 to 64 of letters"),
    ({"max_records_per_fetch": 10001}, "max_records_per_fetch", "maxRecordsPerFetch", "from 1 to 10000"),
    ({"max_records_per_fetch": 0}, "max_records_per_fetch", "maxRecordsPerFetch", "from 1 to 10000"),
    ({"max_records_per_fetch": True}, "max_records_per_fetch", "maxRecordsPerFetch", "a whole number"),
    ({"max_records_per_fetch": 10.0}, "max_records_per_fetch", "maxRecordsPerFetch", "a whole number"),
    (
        {"shard_fetch_interval": dt.timedelta(-1)},
        "shard_fetch_interval",
        "shardFetchInterval",
        "at least 0ms",
    ),
    (
        {"max_shards_per_describe": 10001},
        "max_shards_per_describe",
        "maxShardsPerDescribe",
        "from 1 to 10000",
    ),
    ({"fail_on_data_loss": "false"}, "fail_on_data_loss", "failOnDataLoss", "expected True or False"),
    ({"max_fetch_rate": 2.5}, "max_fetch_rate", "maxFetchRate", "above 0 and at most 2.0"),
    ({"max_fetch_rate": 0}, "max_fetch_rate", "maxFetchRate", "above 0 and at most 2.0"),
    ({"max_fetch_rate": float("nan")}, "max_fetch_rate", "maxFetchRate", "above 0 and at most 2.0"),
    (
        {"min_fetch_period": dt.timedelta(milliseconds=199)},
        "min_fetch_period",
        "minFetchPeriod",
        "at least 200ms",
    ),
    ({"min_fetch_period": "400ms"}, "min_fetch_period", "minFetchPeriod", "expected a datetime.timedelta"),
    (
        {"max_fetch_duration": dt.timedelta(microseconds=1500)},
        "max_fetch_duration",
        "maxFetchDuration",
        "a whole number of milliseconds",
    ),
    ({"max_fetch_duration": dt.timedelta(0)}, "max_fetch_duration", "maxFetchDuration", "at least 1ms"),
    ({"fetch_buffer_size": "lots"}, "fetch_buffer_size", "fetchBufferSize", "a size such as '64mb'"),
    ({"fetch_buffer_size": "2pb"}, "fetch_buffer_size", "fetchBufferSize", "(b, kb, mb, gb or tb"),
    ({"fetch_buffer_size": 0}, "fetch_buffer_size", "fetchBufferSize", "of at least 1b"),
    ({"fetch_buffer_size": "9" * 30}, "fetch_buffer_size", "fetchBufferSize", "it is too large"),
    ({"shards_per_task": 1001}, "shards_per_task", "shardsPerTask", "from 1 to 1000"),
    (
        {"coalesce_threshold_block_size": 0},
        "coalesce_threshold_block_size",
        "coalesceThresholdBlockSize",
        "of at least 1",
    ),
    ({"coalesce_bin_size": -1}, "coalesce_bin_size", "coalesceBinSize", "of at least 1"),
    ({"max_records_per_trigger": 2**63}, "max_records_per_trigger", "maxRecordsPerTrigger", "of at least 1"),
    ({"max_bytes_per_trigger": 1.5}, "max_bytes_per_trigger", "maxBytesPerTrigger", "bytes as an int"),
    ({"consumer_mode": "efo"}, "consumer_mode", "consumerMode", "ConsumerMode.POLLING or ConsumerMode.EFO"),
    ({"consumer_name": "has space"}, "consumer_name", "consumerName", "is not a consumer name"),
    ({"consumer_name": ["a", 1]}, "consumer_name", "consumerName", "expected a non-empty list"),
    ({"consumer_name_prefix": "a/b"}, "consumer_name_prefix", "consumerNamePrefix", "letters, digits"),
    (
        {"consumer_refresh_interval": dt.timedelta(hours=2)},
        "consumer_refresh_interval",
        "consumerRefreshInterval",
        "from 1s to 1h",
    ),
    (
        {"consumer_refresh_interval": dt.timedelta(milliseconds=999)},
        "consumer_refresh_interval",
        "consumerRefreshInterval",
        "from 1s to 1h",
    ),
    (
        {"require_consumer_deregistration": 1},
        "require_consumer_deregistration",
        "requireConsumerDeregistration",
        "expected True or False",
    ),
    # With enhanced fan-out, as the JVM: one consumer name for all streams or one per stream, and names
    # within Kinesis' 128 characters with the prefix.
    (
        {"consumer_mode": ConsumerMode.EFO, "consumer_name": "x,y,z"},
        "consumer_name",
        "consumerName",
        "it names 3 consumers for 2 streams",
    ),
    (
        {"consumer_mode": ConsumerMode.EFO, "consumer_name": "n" * 115},
        "consumer_name",
        "consumerName",
        "129 characters long; Kinesis allows at most 128",
    ),
    (
        {"consumer_mode": ConsumerMode.EFO, "consumer_name_prefix": "p" * 93},
        "consumer_name_prefix",
        "consumerNamePrefix",
        "129 characters long; Kinesis allows at most 128",
    ),
]


# A query's offset, for a position: its form is checked here (what its positions say, by the JVM at .load()).
POSITION_REFUSALS: list[tuple[Any, str]] = [
    ("latest", "for 'latest' give InitialPosition.LATEST"),
    (" TRIM_HORIZON ", "for ' TRIM_HORIZON ' give InitialPosition.TRIM_HORIZON"),
    ("yesterday", "or a streaming query's offset (its progress's endOffset, as JSON text or a dict)"),
    (EndPosition.LATEST, "EndPosition.LATEST is not an InitialPosition; expected InitialPosition.LATEST"),
    (12, "expected InitialPosition.LATEST, .TRIM_HORIZON or .EARLIEST, a timezone-aware datetime.datetime"),
    ('{"v":2,"streams":{}', "it is not JSON; expected a streaming query's offset, its progress's endOffset"),
    ('{"v":2,"streams":{},"x":NaN}', "it is not JSON"),
    ({"v": 2, "streams": {}, "at": dt.date(2020, 6, 25)}, "the dict cannot be JSON"),
    ('{"streams":{}}', 'it has no whole version "v"'),
    ('{"v":"2","streams":{}}', 'it has no whole version "v"'),
    ({"v": True, "streams": {}}, 'it has no whole version "v"'),
    ('{"v":2}', 'it has no object "streams" with an object for each stream'),
    ('{"v":2,"streams":[]}', 'it has no object "streams"'),
    ({"v": 2, "streams": {"s": 7}}, 'it has no object "streams" with an object for each stream'),
    ('{"at_timestamp": "2020-06-25T17:23:45Z"}', "give at_timestamp as a timezone-aware datetime.datetime"),
    ('{"v":2,"streams":{"s":{},"t":{}}}', "it has positions in stream 't', which stream_names (s) does not"),
]


@pytest.mark.parametrize(("value", "accepted"), POSITION_REFUSALS)
def test_a_bad_initial_position_is_refused_naming_field_option_value_and_what_is_accepted(
    value: Any, accepted: str
) -> None:
    for builder in (KinesisSourceOptions, KinesisBatchReadOptions):
        with pytest.raises(KinesisOptionError) as refused:
            builder(stream_names="s", initial_position=value)
        assert str(refused.value).startswith(
            f"[KINESIS_OPTION_INVALID] initial_position (option initialPosition) is {value!r}: "
        )
        assert accepted in str(refused.value), refused.value


@pytest.mark.parametrize(("fields", "name", "option", "accepted"), SOURCE_REFUSALS)
def test_a_bad_source_value_is_refused_naming_field_option_value_and_what_is_accepted(
    fields: dict[str, Any], name: str, option: str, accepted: str
) -> None:
    with pytest.raises(KinesisOptionError) as refused:
        KinesisSourceOptions(**{"stream_names": "a,b", **fields})
    assert str(refused.value).startswith(
        f"[{refused.value.getCondition()}] {name} (option {option}) is {fields[name]!r}: "
    ), refused.value
    assert accepted in str(refused.value), refused.value


BATCH_REFUSALS: list[tuple[dict[str, Any], str, str, str]] = [
    # (fields besides stream_names="a,b", field, option, what the message says is accepted)
    ({"stream_names": "a,b,a"}, "stream_names", "streamName", "a stream is named twice: a"),
    ({"region": ""}, "region", "region", "expected a non-empty string"),
    ({"max_records_per_fetch": 0}, "max_records_per_fetch", "maxRecordsPerFetch", "from 1 to 10000"),
    ({"max_shards_per_describe": 10001}, "max_shards_per_describe", "maxShardsPerDescribe", "1 to 10000"),
    ({"fail_on_data_loss": "true"}, "fail_on_data_loss", "failOnDataLoss", "expected True or False"),
    ({"max_fetch_rate": 2.5}, "max_fetch_rate", "maxFetchRate", "above 0 and at most 2.0"),
    (
        {"min_fetch_period": dt.timedelta(milliseconds=199)},
        "min_fetch_period",
        "minFetchPeriod",
        "at least 200ms",
    ),
    ({"outage_timeout": dt.timedelta(0)}, "outage_timeout", "outageTimeout", "of at least 1s"),
    ({"initial_position": "trim_horizon"}, "initial_position", "initialPosition", "InitialPosition.TRIM"),
    ({"end_position": "latest"}, "end_position", "endPosition", "for 'latest' give EndPosition.LATEST"),
    (
        {"end_position": InitialPosition.TRIM_HORIZON},
        "end_position",
        "endPosition",
        "InitialPosition.TRIM_HORIZON is not an EndPosition; expected EndPosition.LATEST, a timezone-aware",
    ),
    (
        {"end_position": InitialPosition.LATEST},
        "end_position",
        "endPosition",
        "InitialPosition.LATEST is not an EndPosition",
    ),
    ({"end_position": "trim_horizon"}, "end_position", "endPosition", "expected EndPosition.LATEST, a time"),
    (
        {"end_position": dt.datetime(2020, 6, 25)},
        "end_position",
        "endPosition",
        "a datetime without a time zone is ambiguous",
    ),
    ({"end_position": "{}"}, "end_position", "endPosition", 'it has no whole version "v"'),
    (
        {"end_position": {"at_timestamp": "2020-06-25T17:23:45Z"}},
        "end_position",
        "endPosition",
        "give at_timestamp as a timezone-aware datetime.datetime",
    ),
    (
        {"end_position": OFFSET_V2},
        "end_position",
        "endPosition",
        "it has positions in stream 's', which stream_names (a,b) does not name",
    ),
    (
        {"initial_position": json.loads(OFFSET_V3)},
        "initial_position",
        "initialPosition",
        "it has positions in stream 's', which stream_names (a,b) does not name",
    ),
    (
        {
            "initial_position": dt.datetime(2020, 6, 25, 17, 0, tzinfo=dt.timezone.utc),
            "end_position": dt.datetime(2020, 6, 25, 9, 59, 59, 999000, tzinfo=PDT),
        },
        "end_position",
        "endPosition",
        "it is before initial_position (datetime.datetime(2020, 6, 25, 17, 0, tzinfo=datetime.timezone.utc)):"
        " the read would end before it starts",
    ),
    (
        {"consumer_mode": ConsumerMode.EFO},
        "consumer_mode",
        "consumerMode",
        "a batch read polls the range it reads",
    ),
    ({"consumer_mode": "polling"}, "consumer_mode", "consumerMode", "ConsumerMode.POLLING or"),
]


@pytest.mark.parametrize(("fields", "name", "option", "accepted"), BATCH_REFUSALS)
def test_a_bad_batch_read_value_is_refused_naming_field_option_value_and_what_is_accepted(
    fields: dict[str, Any], name: str, option: str, accepted: str
) -> None:
    with pytest.raises(KinesisOptionError) as refused:
        KinesisBatchReadOptions(**{"stream_names": "a,b", **fields})
    assert str(refused.value).startswith(
        f"[{refused.value.getCondition()}] {name} (option {option}) is {fields[name]!r}: "
    ), refused.value
    assert accepted in str(refused.value), refused.value


SINK_REFUSALS: list[tuple[dict[str, Any], str, str, str]] = [
    ({"stream_name": "a,b"}, "stream_name", "streamName", "the sink writes to one stream"),
    ({"stream_name": ["a"]}, "stream_name", "streamName", "expected one stream name"),
    ({"stream_name": "bad name"}, "stream_name", "streamName", "1 to 128 letters"),
    ({"null_data": "skip"}, "null_data", "nullData", "NullData.FAIL or NullData.SKIP"),
    ({"max_in_flight_requests": 0}, "max_in_flight_requests", "maxInFlightRequests", "from 1 to 64"),
    ({"max_in_flight_requests": 65}, "max_in_flight_requests", "maxInFlightRequests", "from 1 to 64"),
    (
        {"write_retry_timeout": 120},
        "write_retry_timeout",
        "writeRetryTimeout",
        "expected a datetime.timedelta",
    ),
    ({"kpl_aggregation": "yes"}, "kpl_aggregation", "kplAggregation", "expected True or False"),
    (
        {"kpl_aggregation_max_size": "2mb"},
        "kpl_aggregation_max_size",
        "kplAggregationMaxSize",
        "from 1kb to 1mb",
    ),
    (
        {"kpl_aggregation_max_size": 1023},
        "kpl_aggregation_max_size",
        "kplAggregationMaxSize",
        "from 1kb to 1mb",
    ),
    ({"role_arn": "reader"}, "role_arn", "roleArn", "expected an IAM role ARN"),
]


@pytest.mark.parametrize(("fields", "name", "option", "accepted"), SINK_REFUSALS)
def test_a_bad_sink_value_is_refused_naming_field_option_value_and_what_is_accepted(
    fields: dict[str, Any], name: str, option: str, accepted: str
) -> None:
    with pytest.raises(KinesisOptionError) as refused:
        KinesisSinkOptions(**fields)
    assert str(refused.value).startswith(
        f"[{refused.value.getCondition()}] {name} (option {option}) is {fields[name]!r}: "
    ), refused.value
    assert accepted in str(refused.value), refused.value


def test_option_errors_are_value_errors_and_a_missing_stream_is_one_too() -> None:
    assert issubclass(KinesisOptionError, ValueError)
    with pytest.raises(KinesisOptionError, match="stream_names"):
        KinesisSourceOptions()
    with pytest.raises(KinesisOptionError, match="stream_names"):
        KinesisBatchReadOptions()


def test_streams_are_named_by_arn_and_read_through_registered_consumers() -> None:
    orders = "arn:aws:kinesis:eu-west-1:111122223333:stream/orders"
    with pytest.raises(KinesisOptionError, match=r"stream_arns \(option streamARN\) is 'orders': "):
        KinesisSourceOptions(stream_arns="orders")
    with pytest.raises(KinesisOptionError, match="both name the streams to read or write"):
        KinesisSinkOptions(stream_name="orders", stream_arn=orders)
    with pytest.raises(KinesisOptionError, match="the sink writes to one stream"):
        KinesisSinkOptions(stream_arn=f"{orders},{orders}")
    efo = {"stream_arns": orders, "consumer_mode": ConsumerMode.EFO}
    by_name = KinesisSourceOptions(**efo, registered_consumer_id="admin").to_options()
    assert by_name["registeredConsumerId"] == "admin"
    with pytest.raises(KinesisOptionError, match=r"registered_consumer_id_type=ConsumerIdType\.ARN"):
        KinesisSourceOptions(**efo, registered_consumer_id=f"{orders}/consumer/admin:1")
    with pytest.raises(KinesisOptionError, match="one consumer ARN per stream"):
        KinesisSourceOptions(
            stream_names="a,b",
            consumer_mode=ConsumerMode.EFO,
            registered_consumer_id=f"{orders}/consumer/admin:1",
            registered_consumer_id_type=ConsumerIdType.ARN,
        )
    for other, value in (("consumer_name", "mine"), ("require_consumer_deregistration", True)):
        with pytest.raises(
            KinesisOptionError,
            match=rf"^\[KINESIS_OPTIONS_CONFLICT\] registered_consumer_id .* given with {other}=",
        ):
            KinesisSourceOptions(**efo, registered_consumer_id="admin", **{other: value})


def test_with_polling_the_consumer_name_count_is_not_checked_as_the_jvm_ignores_it() -> None:
    assert (
        KinesisSourceOptions(stream_names="a,b", consumer_name="x,y,z").to_options()["consumerName"]
        == "x,y,z"
    )
    efo = KinesisSourceOptions(stream_names="a,b", consumer_mode=ConsumerMode.EFO, consumer_name="x")
    assert efo.to_options()["consumerName"] == "x"


# ---- secrets, immutability ----


def test_secrets_stay_out_of_repr_and_of_every_error_message() -> None:
    options = KinesisSourceOptions(**EVERY_SOURCE_FIELD)
    shown = repr(options)
    assert "secret-value-1" not in shown and "token-value-1" not in shown
    assert "aws_secret_key=*****" in shown and "aws_session_token=*****" in shown
    assert "region='eu-west-1'" in shown and "max_records_per_trigger" in shown
    assert repr(KinesisSourceOptions(stream_names="a")) == "KinesisSourceOptions(stream_names='a')"
    batch = repr(KinesisBatchReadOptions(**EVERY_BATCH_FIELD))
    assert "secret-value-1" not in batch and "token-value-1" not in batch
    assert "aws_secret_key=*****" in batch and "end_position=datetime.datetime(2020, 6, 26" in batch

    for secret in ("aws_secret_key", "aws_session_token"):
        for bad in ("", "   ", 12345, ["secret-value-2"]):
            with pytest.raises(KinesisOptionError) as refused:
                KinesisSourceOptions(stream_names="a", **{secret: bad})
            assert str(refused.value).startswith(
                f"[KINESIS_OPTION_INVALID] {secret} (option "
            ) and " is *****: " in str(refused.value)
            assert "12345" not in str(refused.value) and "secret-value-2" not in str(refused.value)
    with pytest.raises(KinesisOptionError) as other:
        KinesisSinkOptions(
            aws_secret_key="secret-value-1", aws_session_token="token-value-1", max_in_flight_requests=0
        )
    assert "secret-value-1" not in str(other.value) and "token-value-1" not in str(other.value)


def test_builders_are_frozen_and_replace_checks_the_new_value() -> None:
    options = KinesisSourceOptions(stream_names="a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.region = "us-east-1"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        KinesisSinkOptions().kpl_aggregation = True  # type: ignore[misc]
    moved = dataclasses.replace(options, region="us-east-1")
    assert moved.to_options() == {"streamName": "a", "region": "us-east-1"} and options.region is None
    with pytest.raises(KinesisOptionError, match="max_records_per_fetch"):
        dataclasses.replace(options, max_records_per_fetch=0)
    day = KinesisBatchReadOptions(
        stream_names="a", initial_position=dt.datetime(2020, 6, 25, tzinfo=dt.timezone.utc)
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        day.end_position = EndPosition.LATEST  # type: ignore[misc]
    with pytest.raises(KinesisOptionError, match="end_position"):
        dataclasses.replace(day, end_position=dt.datetime(2020, 6, 24, tzinfo=dt.timezone.utc))


# ---- the builders and the JVM's option registry ----


def test_jvm_keys_cover_every_key_to_options_gives() -> None:
    arns = {"stream_arns": BY_ARN_SOURCE_FIELD["stream_arns"]}
    for builder, every, also in (
        (KinesisSourceOptions, EVERY_SOURCE_FIELD, BY_ARN_SOURCE_FIELD),
        (KinesisBatchReadOptions, EVERY_BATCH_FIELD, arns),
        (
            KinesisSinkOptions,
            EVERY_SINK_FIELD,
            {"stream_arn": "arn:aws:kinesis:eu-west-1:111122223333:stream/a"},
        ),
    ):
        given = {**builder(**every).to_options(), **builder(**also).to_options()}
        assert set(given) == set(builder.jvm_keys()), builder.__name__
        assert len(builder.jvm_keys()) == len(dataclasses.fields(builder)) == len(set(builder.jvm_keys()))


def test_keys_and_defaults_are_those_of_the_documented_tables_generated_from_the_jvm_registry() -> None:
    source = documented_table("options")
    assert KinesisSourceOptions.jvm_defaults() == source
    shared = ["streamName", "streamARN", *(k for k in AWS_OPTIONS)]
    assert KinesisSinkOptions.jvm_defaults() == {
        **{k: source[k] for k in shared},
        **documented_table("sink-options"),
    }
    assert set(KinesisSourceOptions.jvm_keys()) == set(source)
    # A batch read: the source's options it takes (with the registry's defaults, a stream's), and its own.
    batch_only = documented_table("batch-options")
    assert KinesisBatchReadOptions.jvm_defaults() == {
        **{k: v for k, v in source.items() if k not in STREAMING_ONLY_OPTIONS},
        **batch_only,
    }
    assert set(batch_only) == {"endPosition"}


def test_the_package_exports_the_builders() -> None:
    builders = ("KinesisBatchReadOptions", "KinesisSinkOptions", "KinesisSourceOptions")
    enums = ("ConsumerIdType", "ConsumerMode", "EndPosition", "InitialPosition", "NullData")
    for name in (*enums, *builders, "ShardSequenceNumbers"):
        assert name in pyspark_kinesis.__all__ and getattr(pyspark_kinesis, name) is not None
    assert pyspark_kinesis.__version__


# ---- against the JVM: the registry, and every value the builders give ----


def test_builders_and_the_jvm_registry_agree_on_every_key_and_default(spark: SparkSession) -> None:
    registry = _jvm.connector(spark, "api.KinesisOptionsRegistry")
    for builder, jvm in (
        (KinesisSourceOptions, dict(registry.sourceOptions())),
        (KinesisBatchReadOptions, dict(registry.batchReadOptions())),
        (KinesisSinkOptions, dict(registry.sinkOptions())),
    ):
        assert set(builder.jvm_keys()) == set(jvm), builder.__name__
        assert builder.jvm_defaults() == jvm, builder.__name__


def test_the_jvm_accepts_every_value_the_builders_give(spark: SparkSession) -> None:
    # .load() checks every option value given, for reading and for writing alike, and a batch read's too.
    spark.readStream.format("kinesis").options(
        **KinesisSourceOptions(**EVERY_SOURCE_FIELD).to_options()
    ).load()
    spark.readStream.format("kinesis").options(**KinesisSinkOptions(**EVERY_SINK_FIELD).to_options()).load()
    by_arn = KinesisSourceOptions(**BY_ARN_SOURCE_FIELD).to_options()
    spark.readStream.format("kinesis").options(**by_arn).load()
    spark.read.format("kinesis").options(**KinesisBatchReadOptions(**EVERY_BATCH_FIELD).to_options()).load()
    for offset in (OFFSET_V1, OFFSET_V2, json.loads(OFFSET_V3)):
        after = KinesisSourceOptions(stream_names="s", region="us-east-1", initial_position=offset)
        spark.readStream.format("kinesis").options(**after.to_options()).load()
        between = KinesisBatchReadOptions(
            stream_names="s", region="us-east-1", initial_position=offset, end_position=offset
        )
        spark.read.format("kinesis").options(**between.to_options()).load()


@pytest.mark.parametrize(
    ("offset", "problem"),
    [
        ('{"v":6,"streams":{}}', "version 6 is newer than this connector understands"),
        ('{"v":5,"streams":{"s":{"shards":"AAAA"}}}', "stream 's' has a damaged string of shards"),
        ('{"v":0,"streams":{}}', "version 0 does not exist"),
        (
            '{"v":2,"streams":{"s":{"shards":{"shardId-0":{"kind":"sideways"}}}}}',
            "an unknown kind 'sideways'",
        ),
        ('{"v":2,"streams":{"s":{"shards":{"shardId-0":{"kind":"after","seq":"4a"}}}}}', "is not a number"),
        ('{"v":2,"streams":{"s":{"arn":"arn:aws:kinesis:x"}}}', 'needs both a string "arn" and a number'),
    ],
)
def test_what_an_offsets_positions_say_is_the_jvms_to_judge_at_load(
    spark: SparkSession, offset: str, problem: str
) -> None:
    # The builders check an offset's form; the offset's format is the JVM's, which refuses one it cannot
    # read when the DataFrame is created, naming the option.
    where = {"stream_names": "s", "region": "us-east-1"}
    reads = [
        (spark.readStream, KinesisSourceOptions(**where, initial_position=offset), "initialPosition"),
        (spark.read, KinesisBatchReadOptions(**where, initial_position=offset), "initialPosition"),
        (spark.read, KinesisBatchReadOptions(**where, end_position=offset), "endPosition"),
    ]
    for reader, options, option in reads:
        with pytest.raises(KinesisOptionError) as refused:
            reader.format("kinesis").options(**options.to_options()).load()
        assert refused.value.condition == "KINESIS_OPTION_INVALID"
        assert f"Option '{option}' has an invalid value" in str(refused.value), refused.value
        assert problem in str(refused.value), refused.value


# ---- one owner per rule: the builders and the JVM judge the same values alike ----

_SAMPLE_NAMES = ["a", "a.b-c_D9", "x" * 128, "x" * 129, "bad name", "ünï", "a/b", "a,b", "a,,b", "a,a", " a "]
_SAMPLE_TEXT = [
    "",
    " ",
    "x",
    "ab",
    "a b",
    "x" * 64,
    "x" * 65,
    "s@e=1,2.3-4_5+6",
    "arn:aws:iam::123456789012:role/reader",
    "arn:aws-cn:iam::123456789012:role/path/reader",
    "arn:aws:iam::1234:role/reader",
    "arn:aws:iam::123456789012:user/reader",
    # Found by test_option_properties.py: the JVM trims controls and the space only.
    "\x1b",
    "\xa0",
]
# Positions: at_timestamp, query offsets of the stream "s" in every form, and text that is none of them.
_SAMPLE_INSTANTS = [
    dt.datetime(2020, 6, 25, 17, 23, 45, tzinfo=dt.timezone.utc),
    dt.datetime(2020, 6, 25, 10, 23, 45, 120000, tzinfo=PDT),
]
_SAMPLE_OFFSETS = [
    OFFSET_V1,
    OFFSET_V2,
    OFFSET_V3,
    ' {"v":2,"streams":{}} ',
    '{"v":2,"streams":{"s":{"shards":{}}}',
    '{"streams":{}}',
    '{"v":"2","streams":{}}',
    '{"v":2}',
    '{"v":2,"streams":[]}',
    '{"v":2,"streams":{"s":7}}',
    '{"v":2,"streams":{},"x":NaN}',
    '[{"v":2,"streams":{}}]',
    "{}",
    "yesterday",
]
_SAMPLE_URLS = [
    "http://localhost:4566",
    "https://kinesis.us-east-1.amazonaws.com",
    "kinesis.local",
    "ftp://kinesis.local",
    "not a url",
    "http://my_host:4566",
    "http://[::1]:4566",
    "http://host:65535",
    "http://host:65536",
    # Found by test_option_properties.py: what java.net.URI takes as a host, and what urllib cannot split.
    "http://1",
    "http://1.1",
    "http://10.0.0.1",
    "http://256.0.0.1",
    "http://][::0",
    "http://[::1",
]


def _cases(rule: dict[str, Any], enum: type[Enum] | None) -> list[tuple[Any, str]]:
    """Values for a field of the rule, each with the string the JVM gets for it: both sides of every
    bound, and samples of names, patterns and URLs."""
    kind = rule["kind"]
    if kind == "whole":
        low, high = rule["min"], rule["max"]
        return [(n, str(n)) for n in (low - 1, low, high, high + 1)]
    if kind == "decimal":
        low, high = rule["min"], rule["max"]
        return [(x, repr(float(x))) for x in (low - 0.5, low, low + 0.001, high, high + 0.001)]
    if kind == "duration":
        low, high = rule["minMs"], rule["maxMs"]
        ms = [low - 1, low, low + 1] + ([high, high + 1] if high < 2**62 else [10**15])
        timed = [(dt.timedelta(milliseconds=m), f"{m}ms") for m in ms if m >= 0]
        return timed + ([("inf", "inf")] if rule["inf"] else [])
    if kind == "size":
        low, high = rule["min"], rule["max"]
        sizes = [low - 1, low, high, high + 1] if high < 2**62 else [low - 1, low, 2**40, 2**63 - 1]
        return [(n, str(n)) for n in sizes] + [(f"{low}b", f"{low}b"), ("3 zb", "3 zb")]
    if kind == "flag":
        return [(True, "true"), (False, "false")]
    if kind == "choice":
        return [(member, member.value) for member in enum or ()]
    if kind == "position":
        members = [(member, member.value) for member in enum or ()]
        # Where a read starts, given as where it ends (trim_horizon): refused alike.
        starts = [(member, member.value) for member in InitialPosition if member.value not in rule["values"]]
        instants = [
            (
                t,
                json.dumps(
                    {"at_timestamp": t.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")}
                ),
            )
            for t in _SAMPLE_INSTANTS
        ]
        offsets: list[tuple[Any, str]] = [(o, o) for o in _SAMPLE_OFFSETS]
        as_dicts = [(json.loads(o), o) for o in (OFFSET_V2, OFFSET_V3)]
        return members + starts + instants + offsets + as_dicts
    if kind == "endpoint":
        return [(u, u) for u in _SAMPLE_URLS]
    if kind == "names":
        return [(n, n) for n in _SAMPLE_NAMES]
    return [(t, t) for t in _SAMPLE_TEXT]  # text and patterns


def test_the_builders_and_the_jvm_accept_and_refuse_the_same_values(spark: SparkSession) -> None:
    registry = _jvm.connector(spark, "api.KinesisOptionsRegistry")
    exported = json.loads(str(registry.json()))

    def batch_read_refuses(key: str, text: str) -> bool:
        """Whether a batch read refuses at .load() a value its option's rule takes (consumerMode efo)."""
        try:
            options = {"streamName": "s", "region": "us-east-1", key: text}
            spark.read.format("kinesis").options(**options).load()
        except KinesisOptionError as refused:
            return refused.condition == "KINESIS_OPTION_NOT_IN_BATCH_READ"
        return False

    disagreements = []
    builders: list[tuple[type[Any], dict[str, Any], str]] = [
        (KinesisSourceOptions, {"stream_names": "s"}, "source"),
        (KinesisBatchReadOptions, {"stream_names": "s"}, "batch"),
        (KinesisSinkOptions, {}, "sink"),
    ]
    for builder, base, side in builders:
        for f in dataclasses.fields(builder):
            spec = f.metadata["jvm"]
            option = next(o for o in exported[side] if o["key"] == spec.key)
            if builder is KinesisSinkOptions and spec.key in ("streamName", "streamARN"):
                continue  # the sink's one stream: the JVM refuses several when it plans the write
            enum = {
                "consumerMode": ConsumerMode,
                "nullData": NullData,
                "initialPosition": InitialPosition,
                "endPosition": EndPosition,
                "registeredConsumerIdType": ConsumerIdType,
            }.get(spec.key)
            for value, text in _cases(option["rule"], enum):
                try:
                    # Streams are named by name or by ARN, not both.
                    builder(**{**(base if spec.key != "streamARN" else {}), f.name: value})
                    python = True
                except KinesisOptionError as refused:
                    # An option given without one it needs (keys, a role's options, a registered consumer
                    # without efo) is refused for the other's absence, after its value was taken: the value
                    # is what is compared here (the rules between options have a test of their own).
                    python = (
                        refused.getCondition() == "KINESIS_OPTIONS_INCOMPLETE"
                        and refused.getMessageParameters()["present"] == spec.key
                    )
                jvm = str(registry.check(spec.key, text)) == ""
                if jvm and side == "batch":
                    jvm = not batch_read_refuses(spec.key, text)
                if python != jvm:
                    disagreements.append(
                        f"{builder.__name__}.{f.name} = {value!r}: Python {python}, JVM {jvm}"
                    )
    assert not disagreements, "\n".join(disagreements)


def test_the_builders_and_the_jvm_judge_where_a_read_starts_and_ends_alike(spark: SparkSession) -> None:
    # What a batch read refuses of its options together, at .load(): an end before the start (both sides
    # of the bound, in the milliseconds the JVM holds instants in), an offset of a stream not read.
    start = dt.datetime(2020, 6, 25, 17, 23, 45, 1900, tzinfo=dt.timezone.utc)
    ms = dt.timedelta(milliseconds=1)
    ranges: list[dict[str, Any]] = [
        {"initial_position": start, "end_position": start - ms},
        {"initial_position": start, "end_position": start - dt.timedelta(microseconds=900)},
        {"initial_position": start, "end_position": start - dt.timedelta(microseconds=1000)},
        {"initial_position": start, "end_position": start},
        {"initial_position": start, "end_position": start + ms},
        {"initial_position": start.astimezone(PDT), "end_position": start - dt.timedelta(hours=7)},
        {"stream_names": "s", "initial_position": OFFSET_V2},
        {"stream_names": "t", "initial_position": OFFSET_V2},
        {"stream_names": "s,t", "end_position": json.loads(OFFSET_V3)},
        {"stream_names": "t", "end_position": OFFSET_V3},
        {"stream_names": "t", "end_position": '{"v":2,"streams":{}}'},
    ]
    disagreements = []
    for fields in ranges:
        fields = {"stream_names": "s", **fields}
        try:
            KinesisBatchReadOptions(**fields)
            python = True
        except KinesisOptionError:
            python = False
        raw = {"streamName": fields["stream_names"], "region": "us-east-1"}
        for name, key in (("initial_position", "initialPosition"), ("end_position", "endPosition")):
            value = fields.get(name)
            if isinstance(value, dt.datetime):
                raw[key] = json.dumps({"at_timestamp": value.isoformat()})
            elif isinstance(value, dict):
                raw[key] = json.dumps(value)
            elif value is not None:
                raw[key] = value
        try:
            spark.read.format("kinesis").options(**raw).load()
            jvm = True
        except KinesisOptionError:
            jvm = False
        if python != jvm:
            disagreements.append(f"{fields}: Python {python}, JVM {jvm}")
    # A streaming query started after an offset refuses one of a stream it does not read alike.
    for streams in ("s", "t", "t,s"):
        try:
            KinesisSourceOptions(stream_names=streams, initial_position=OFFSET_V2)
            python = True
        except KinesisOptionError:
            python = False
        raw = {"streamName": streams, "region": "us-east-1", "initialPosition": OFFSET_V2}
        try:
            spark.readStream.format("kinesis").options(**raw).load()
            jvm = True
        except KinesisOptionError:
            jvm = False
        if python != jvm:
            disagreements.append(
                f"KinesisSourceOptions of {streams} after {OFFSET_V2}: Python {python}, JVM {jvm}"
            )
    assert not disagreements, "\n".join(disagreements)


def test_options_refused_together_or_missing_have_the_conditions_the_jvm_gives_them() -> None:
    arn = "arn:aws:kinesis:eu-west-1:111122223333:stream/a"
    refusals = {
        "KINESIS_OPTION_MISSING": lambda: KinesisSourceOptions(stream_names=None),
        "KINESIS_OPTIONS_CONFLICT": lambda: KinesisSourceOptions(stream_names="a", stream_arns=arn),
    }
    for condition, make in refusals.items():
        with pytest.raises(KinesisOptionError) as refused:
            make()
        assert refused.value.getCondition() == condition and refused.value.getSqlState() == "42616"
    with pytest.raises(KinesisOptionError) as both:
        KinesisSinkOptions(stream_name="a", stream_arn=arn)
    assert both.value.getCondition() == "KINESIS_OPTIONS_CONFLICT"
    # As the JVM's declaration (OptionRelations.StreamsOneWay) names them, and .load() does.
    assert both.value.getMessageParameters()["key"] == "streamName"
    assert both.value.getMessageParameters()["other"] == "streamARN"


def test_options_the_jvm_declares_exclusive_or_required_are_refused_as_load_refuses_them(
    spark: SparkSession,
) -> None:
    # Each rule between options that _options.json declares (OptionRelations), broken in a builder and in
    # .load(): the same condition and parameters, the reason included.
    arn = "arn:aws:kinesis:eu-west-1:111122223333:stream/a"
    efo = {"consumer_mode": ConsumerMode.EFO, "registered_consumer_id": "admin"}
    efo_raw = {"consumerMode": "efo", "registeredConsumerId": "admin"}
    cases: list[tuple[type[Any], dict[str, Any], dict[str, str]]] = [
        (
            KinesisSourceOptions,
            {"stream_names": "a", "stream_arns": arn},
            {"streamName": "a", "streamARN": arn},
        ),
        (KinesisSourceOptions, {}, {}),
        (
            KinesisSourceOptions,
            {"max_partitions": 2, "shards_per_task": 3},
            {"maxPartitions": "2", "shardsPerTask": "3"},
        ),
        (KinesisSourceOptions, {**efo, "consumer_name": "mine"}, {**efo_raw, "consumerName": "mine"}),
        (
            KinesisSourceOptions,
            {**efo, "consumer_name_prefix": "x_"},
            {**efo_raw, "consumerNamePrefix": "x_"},
        ),
        (
            KinesisSourceOptions,
            {**efo, "require_consumer_deregistration": True},
            {**efo_raw, "requireConsumerDeregistration": "true"},
        ),
        (
            KinesisBatchReadOptions,
            {"stream_names": "a", "stream_arns": arn},
            {"streamName": "a", "streamARN": arn},
        ),
        (KinesisBatchReadOptions, {}, {}),
        (KinesisSinkOptions, {"stream_name": "a", "stream_arn": arn}, {"streamName": "a", "streamARN": arn}),
        (
            KinesisSourceOptions,
            {"registered_consumer_id": "admin"},
            {"registeredConsumerId": "admin"},
        ),
    ]
    # Options that need another, on every side: keys whole or not at all, a role's options with the role.
    needing = [
        ({"aws_access_key": "AKIA0000"}, {"awsAccessKey": "AKIA0000"}),
        ({"aws_secret_key": "s3cr3t"}, {"awsSecretKey": "s3cr3t"}),
        ({"aws_session_token": "t0ken"}, {"awsSessionToken": "t0ken"}),
        ({"role_external_id": "x-1"}, {"roleExternalId": "x-1"}),
        (
            {"sts_endpoint": "https://sts.eu-west-1.amazonaws.com"},
            {"stsEndpoint": "https://sts.eu-west-1.amazonaws.com"},
        ),
    ]
    for builder in (KinesisSourceOptions, KinesisBatchReadOptions):
        cases += [(builder, fields, raw) for fields, raw in needing]
    cases += [
        (KinesisSinkOptions, {"stream_name": "a", **fields}, {"streamName": "a", **raw})
        for fields, raw in needing
    ]
    exported = json.loads((Path(pyspark_kinesis.__file__).parent / "_options.json").read_text())
    declared = {side: len(rules) for side, rules in exported["relations"].items()}
    assert declared == {"source": 12, "batch": 7, "sink": 6, "shared": 5}, (
        "a rule was added or removed: update the cases"
    )
    for builder, fields, raw in cases:
        reading = builder is not KinesisSinkOptions
        base = {"stream_names": "a"} if reading and fields and "stream_arns" not in fields else {}
        with pytest.raises(KinesisOptionError) as python:
            builder(**base, **fields)
        options = {"region": "eu-west-1", **({"streamName": "a"} if base else {}), **raw}
        with pytest.raises(KinesisOptionError) as jvm:
            if builder is KinesisSinkOptions:
                rows = spark.range(1).selectExpr("CAST(id AS STRING) AS data")
                rows.write.format("kinesis").options(**options).save()
            else:
                reader = spark.read if builder is KinesisBatchReadOptions else spark.readStream
                reader.format("kinesis").options(**options).load()
        assert python.value.getCondition() == jvm.value.getCondition(), (fields, jvm.value)
        parameters = dict(jvm.value.getMessageParameters())
        if python.value.getCondition() == "KINESIS_OPTION_MISSING":
            parameters.pop("example")  # the JVM's example value; Python's message says what to give instead
        assert python.value.getMessageParameters() == parameters, (fields, jvm.value)


def test_the_options_every_side_shares_keep_their_rules_alone() -> None:
    # What the consumer manager and its command line build: the shared options, and the JVM's rules between
    # them (OptionRelations.shared), with no side's own.
    from pyspark_kinesis.options import _KinesisOptions

    assert _KinesisOptions(region="eu-west-1").to_options() == {"region": "eu-west-1"}
    with pytest.raises(KinesisOptionError) as refused:
        _KinesisOptions(region="eu-west-1", aws_access_key="AKIA0000")
    assert refused.value.getCondition() == "KINESIS_OPTIONS_INCOMPLETE"
    assert refused.value.getMessageParameters()["key"] == "awsSecretKey"
