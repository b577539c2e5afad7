# SPDX-License-Identifier: Apache-2.0
"""Enhanced fan-out consumers, listed, registered and deregistered outside a query."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol

from pyspark.sql import SparkSession

from pyspark_kinesis import _connect, _jvm

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
    manager on the session's driver: over py4j on a classic session, through the connector's server plugin on
    a Spark Connect session (whose server must run it: see the documentation's "Spark Connect" guide).

    :param spark: a session with the connector jar (see :func:`pyspark_kinesis.configure_spark_with_kinesis`),
        classic or Spark Connect
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
        self._calls: _Calls = (
            _ConnectCalls(spark, given) if _connect.is_connect(spark) else _Py4jCalls(spark, given)
        )

    def list_consumers(self, stream: str) -> list[ConsumerInfo]:
        """The consumers registered with ``stream``: its name, or its ARN (another account's stream shared by
        a resource policy must be given by ARN; so may ``stream`` of the other methods).

        :raises KinesisStreamNotFoundError: if the stream does not exist
        :raises KinesisAccessDeniedError: if ListStreamConsumers is denied
        """
        return [_consumer(row) for row in self._calls.list(stream)]

    def register_consumer(self, stream: str, name: str) -> str:
        """Registers a consumer named ``name`` with ``stream``, or finds the one that exists, and returns its
        ARN once it is ACTIVE (Kinesis takes a few seconds).

        :raises KinesisOptionError: if ``name`` is no consumer name
        """
        return self._calls.register(stream, name)

    def deregister_consumer(self, stream: str, name: str) -> None:
        """Starts deregistering the consumer ``name`` of ``stream``; Kinesis removes it within seconds.

        :raises KinesisConsumerNotFoundError: if no consumer of that name is registered
        """
        self._calls.deregister(stream, name)

    def close(self) -> None:
        """Releases the JVM manager's Kinesis client (on a Spark Connect session each call has its own)."""
        self._calls.close()

    def __enter__(self) -> KinesisConsumerManager:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class _Calls(Protocol):
    """How the manager reaches the JVM's: rows in the columns of the JVM manager's ``listConsumers``."""

    def list(self, stream: str) -> list[Any]: ...

    def register(self, stream: str, name: str) -> str: ...

    def deregister(self, stream: str, name: str) -> None: ...

    def close(self) -> None: ...


class _Py4jCalls:
    """A classic session: one JVM manager on the driver, over py4j, kept until :meth:`close`."""

    def __init__(self, spark: SparkSession, options: Mapping[str, str]) -> None:
        self._spark = spark
        manager_class = _jvm.connector(spark, "api.KinesisConsumerManager")
        self._manager: Any = _jvm.call(lambda: manager_class.create(_jvm.java_map(options)))

    def list(self, stream: str) -> list[Any]:
        jdf = _jvm.call(lambda: self._manager.listConsumers(stream))
        rows: list[Any] = _jvm.dataframe(self._spark, jdf).collect()
        return rows

    def register(self, stream: str, name: str) -> str:
        return str(_jvm.call(lambda: self._manager.registerConsumer(stream, name)))

    def deregister(self, stream: str, name: str) -> None:
        _jvm.call(lambda: self._manager.deregisterConsumer(stream, name))

    def close(self) -> None:
        _jvm.call(lambda: self._manager.close())


class _ConnectCalls:
    """A Spark Connect session: each call runs on the server's plugin, with the options checked there first
    (so that a bad option fails here, as it does on a classic session)."""

    def __init__(self, spark: SparkSession, options: Mapping[str, str]) -> None:
        self._spark = spark
        self._options = dict(options)
        _connect.call(spark, "check", self._options)

    def list(self, stream: str) -> list[Any]:
        return _connect.call(self._spark, "list", self._options, stream)

    def register(self, stream: str, name: str) -> str:
        (row,) = _connect.call(self._spark, "register", self._options, stream, name)
        return str(row["consumerARN"])

    def deregister(self, stream: str, name: str) -> None:
        _connect.call(self._spark, "deregister", self._options, stream, name)

    def close(self) -> None:
        pass


def _consumer(row: Any) -> ConsumerInfo:
    return ConsumerInfo(
        name=row["consumerName"],
        arn=row["consumerARN"],
        status=row["consumerStatus"],
        created_at=_utc(row["consumerCreationTimestamp"]),
    )


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    """PySpark returns timestamps as naive local times; this is the same instant, in UTC."""
    return None if value is None else value.astimezone(dt.timezone.utc)
