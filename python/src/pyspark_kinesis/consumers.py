# SPDX-License-Identifier: Apache-2.0
"""Enhanced fan-out consumers, listed, registered and deregistered outside a query."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from pyspark.sql import SparkSession

from pyspark_kinesis import _jvm

__all__ = ["ConsumerInfo", "KinesisConsumerManager"]


@dataclass(frozen=True)
class ConsumerInfo:
    """A consumer registered with a stream.

    :ivar name: the consumer's name, as registered (a query's consumer is ``consumerNamePrefix`` +
        ``consumerName``)
    :ivar arn: the consumer's ARN
    :ivar status: ``CREATING``, ``ACTIVE`` or ``DELETING``
    :ivar created_at: when it was registered, in UTC; ``None`` if Kinesis did not say
    """

    name: str
    arn: str
    status: str
    created_at: dt.datetime | None


class KinesisConsumerManager:
    """Lists, registers and deregisters a stream's enhanced fan-out consumers, through the connector's JVM
    manager on the session's driver.

    :param spark: a session with the connector jar (see :func:`pyspark_kinesis.configure_spark_with_kinesis`)
    :param options: where and as whom to call Kinesis, as the source takes them: ``region``, ``endpoint``,
        ``awsAccessKey``/``awsSecretKey``/``awsSessionToken``, ``roleArn``/``roleExternalId``/
        ``roleSessionName``/``stsEndpoint``; a mapping of those keys, or any object with ``to_options()``
        (such as :class:`pyspark_kinesis.KinesisSourceOptions`), whose other keys are ignored
    :raises KinesisOptionError: for a bad option, before any call to Kinesis

    Use it as a context manager, or call :meth:`close`::

        with KinesisConsumerManager(spark, {"region": "eu-west-1"}) as manager:
            arn = manager.register_consumer("orders", "spark-kinesis_orders-to-lake")
    """

    def __init__(self, spark: SparkSession, options: Mapping[str, str] | Any) -> None:
        given: Mapping[str, str] = options.to_options() if hasattr(options, "to_options") else options
        self._spark = spark
        manager_class = _jvm.connector(spark, "api.KinesisConsumerManager")
        self._manager: Any = _jvm.call(lambda: manager_class.create(_jvm.java_map(given)))

    def list_consumers(self, stream: str) -> list[ConsumerInfo]:
        """The consumers registered with ``stream``: its name, or its ARN (another account's stream shared by
        a resource policy must be given by ARN; so may ``stream`` of the other methods).

        :raises KinesisStreamNotFoundError: if the stream does not exist
        :raises KinesisAccessDeniedError: if ListStreamConsumers is denied
        """
        jdf = _jvm.call(lambda: self._manager.listConsumers(stream))
        rows = _jvm.dataframe(self._spark, jdf).collect()
        return [
            ConsumerInfo(
                name=row["consumerName"],
                arn=row["consumerARN"],
                status=row["consumerStatus"],
                created_at=_utc(row["consumerCreationTimestamp"]),
            )
            for row in rows
        ]

    def register_consumer(self, stream: str, name: str) -> str:
        """Registers a consumer named ``name`` with ``stream``, or finds the one that exists, and returns its
        ARN once it is ACTIVE (Kinesis takes a few seconds).

        :raises KinesisOptionError: if ``name`` is no consumer name
        """
        return str(_jvm.call(lambda: self._manager.registerConsumer(stream, name)))

    def deregister_consumer(self, stream: str, name: str) -> None:
        """Starts deregistering the consumer ``name`` of ``stream``; Kinesis removes it within seconds.

        :raises KinesisOptionError: if no consumer of that name is registered
        """
        _jvm.call(lambda: self._manager.deregisterConsumer(stream, name))

    def close(self) -> None:
        """Releases the JVM manager's Kinesis client."""
        _jvm.call(lambda: self._manager.close())

    def __enter__(self) -> KinesisConsumerManager:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    """PySpark returns timestamps as naive local times; this is the same instant, in UTC."""
    return None if value is None else value.astimezone(dt.timezone.utc)
