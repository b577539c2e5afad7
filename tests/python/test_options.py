"""The typed option builders: what they give the JVM, what they refuse, and that they and the JVM's option
registry cannot drift apart."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark_kinesis import _jvm
from pyspark_kinesis.options import (
    ConsumerMode,
    InitialPosition,
    KinesisSinkOptions,
    KinesisSourceOptions,
    NullData,
)

EVERY_SOURCE_FIELD: dict[str, Any] = {
    "stream_names": ["orders", "clicks"],
    "initial_position": dt.datetime(2020, 6, 25, 10, 23, 45, tzinfo=dt.timezone(dt.timedelta(hours=-7))),
    "region": "eu-west-1",
    "endpoint": "https://kinesis.eu-west-1.amazonaws.com",
    "aws_access_key": "AKIAEXAMPLE0000",
    "aws_secret_key": "secret-value-1",
    "aws_session_token": "token-value-1",
    "role_arn": "arn:aws:iam::123456789012:role/reader",
    "role_external_id": "ext-1",
    "role_session_name": "orders-reader",
    "sts_endpoint": "https://sts.eu-west-1.amazonaws.com",
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

EVERY_SINK_FIELD: dict[str, Any] = {
    **{
        k: v
        for k, v in EVERY_SOURCE_FIELD.items()
        if k in {f.name for f in dataclasses.fields(KinesisSinkOptions)}
    },
    "stream_name": "orders",
    "null_data": NullData.SKIP,
    "max_in_flight_requests": 8,
    "write_retry_timeout": dt.timedelta(minutes=5),
    "kpl_aggregation": True,
    "kpl_aggregation_max_size": "64kb",
}


def test_every_field_becomes_its_jvm_option_as_the_jvm_spells_it() -> None:
    options = KinesisSourceOptions(**EVERY_SOURCE_FIELD).to_options()
    assert options["streamName"] == "orders,clicks"
    assert options["initialPosition"] == '{"at_timestamp": "2020-06-25T17:23:45.000Z"}'
    assert options["failOnDataLoss"] == "false" and options["requireConsumerDeregistration"] == "true"
    assert options["minFetchPeriod"] == "210ms" and options["maxFetchDuration"] == "200ms"
    assert options["shardFetchInterval"] == "2s" and options["consumerRefreshInterval"] == "5m"
    assert options["maxFetchRate"] == "1.5" and options["fetchBufferSize"] == "2gb"
    assert options["maxBytesPerTrigger"] == str(256 * 1024 * 1024)
    assert options["consumerMode"] == "efo" and options["consumerName"] == "orders-reader,clicks-reader"
    assert set(options) == set(KinesisSourceOptions.jvm_keys())
    sink = KinesisSinkOptions(**EVERY_SINK_FIELD).to_options()
    assert (
        sink["nullData"] == "skip" and sink["writeRetryTimeout"] == "5m" and sink["kplAggregation"] == "true"
    )
    assert set(sink) == set(KinesisSinkOptions.jvm_keys())


def test_fields_left_out_are_not_sent_so_the_jvm_defaults_apply() -> None:
    assert KinesisSourceOptions(stream_names="orders").to_options() == {"streamName": "orders"}
    assert KinesisSinkOptions().to_options() == {}
    assert KinesisSourceOptions(
        stream_names="a", initial_position=InitialPosition.TRIM_HORIZON
    ).to_options() == {
        "streamName": "a",
        "initialPosition": "trim_horizon",
    }


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, "stream_names (option streamName) is required"),
        ({"stream_names": "bad name"}, "stream_names (option streamName) is 'bad name'"),
        ({"stream_names": "a,a"}, "a stream is named twice"),
        ({"initial_position": dt.datetime(2020, 1, 1)}, "needs a time zone"),
        ({"initial_position": "latest"}, "expected an InitialPosition"),
        ({"max_records_per_fetch": 10001}, "max_records_per_fetch (option maxRecordsPerFetch) is 10001"),
        ({"max_fetch_rate": 2.5}, "at most 2.0"),
        ({"min_fetch_period": dt.timedelta(milliseconds=100)}, "expected from 200ms on"),
        ({"max_fetch_duration": "200ms"}, "expected a datetime.timedelta"),
        ({"fetch_buffer_size": "lots"}, "fetch_buffer_size (option fetchBufferSize) is 'lots'"),
        ({"consumer_refresh_interval": dt.timedelta(hours=2)}, "expected from 1s to 1h"),
        ({"consumer_mode": "efo"}, "expected a ConsumerMode"),
        ({"consumer_name": "has space"}, "is not a consumer name"),
        ({"role_arn": "reader"}, "expected an IAM role ARN"),
        ({"role_session_name": "x"}, "2 to 64"),
        ({"endpoint": "not a url"}, "expected an http(s) URL"),
        ({"fail_on_data_loss": "false"}, "expected True or False"),
    ],
)
def test_bad_values_are_refused_naming_field_option_and_value(fields: dict[str, Any], expected: str) -> None:
    given = fields if not fields or "stream_names" in fields else {"stream_names": "orders", **fields}
    with pytest.raises(ValueError) as refused:
        KinesisSourceOptions(**given)
    assert expected in str(refused.value), str(refused.value)


def test_sink_values_are_checked_too() -> None:
    with pytest.raises(ValueError) as size:
        KinesisSinkOptions(kpl_aggregation_max_size="2mb")
    assert "kpl_aggregation_max_size (option kplAggregationMaxSize) is '2mb': expected from 1024" in str(
        size.value
    )
    with pytest.raises(ValueError) as streams:
        KinesisSinkOptions(stream_name="a,b")
    assert "expected one stream name" in str(streams.value)
    with pytest.raises(ValueError):
        KinesisSinkOptions(max_in_flight_requests=0)


def test_secrets_stay_out_of_repr_and_errors_and_builders_are_frozen() -> None:
    options = KinesisSourceOptions(**EVERY_SOURCE_FIELD)
    assert "secret-value-1" not in repr(options) and "token-value-1" not in repr(options)
    with pytest.raises(ValueError) as refused:
        KinesisSourceOptions(stream_names="a", aws_secret_key="")
    assert "aws_secret_key (option awsSecretKey) is *****" in str(refused.value)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.region = "us-east-1"  # type: ignore[misc]


def test_builders_and_the_jvm_registry_agree_on_every_key_and_default(spark: SparkSession) -> None:
    registry = _jvm.connector(spark, "api.KinesisOptionsRegistry")
    for builder, jvm in (
        (KinesisSourceOptions, dict(registry.sourceOptions())),
        (KinesisSinkOptions, dict(registry.sinkOptions())),
    ):
        assert set(builder.jvm_keys()) == set(jvm), builder.__name__
        assert builder.jvm_defaults() == jvm, builder.__name__


def test_the_jvm_accepts_every_value_the_builders_give(spark: SparkSession) -> None:
    # .load() checks every option value given, for reading and for writing alike.
    spark.readStream.format("kinesis").options(
        **KinesisSourceOptions(**EVERY_SOURCE_FIELD).to_options()
    ).load()
    spark.readStream.format("kinesis").options(**KinesisSinkOptions(**EVERY_SINK_FIELD).to_options()).load()
