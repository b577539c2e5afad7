# SPDX-License-Identifier: Apache-2.0
"""Errors the connector raises, as Python exceptions.

Every error of the JVM side is a Spark error condition (``KINESIS_ACCESS_DENIED``, ...; the README's "When
things go wrong" lists them). Once this package is imported, PySpark raises a JVM error whose cause chain
holds one of them as the :class:`KinesisError` subclass for its condition: from ``load()``, ``start()``,
``save()`` and the consumer manager, with the JVM's one-line message rather than a Py4J stack trace. A
streaming query that fails stays a PySpark ``StreamingQueryException``; :func:`kinesis_cause` finds the
connector's error in it.
"""

from __future__ import annotations

import re
import sys
from typing import Any

__all__ = [
    "KinesisAccessDeniedError",
    "KinesisCheckpointError",
    "KinesisConsumerNotFoundError",
    "KinesisCredentialsError",
    "KinesisDataLossError",
    "KinesisError",
    "KinesisOptionError",
    "KinesisStreamNotFoundError",
    "KinesisUnavailableError",
    "KinesisWriteError",
    "kinesis_cause",
]


class KinesisError(Exception):
    """An error of the Kinesis connector.

    :ivar condition: the JVM's error condition, such as ``KINESIS_ACCESS_DENIED``, or ``None`` for an error
        the Python side raised itself
    :ivar sql_state: the condition's SQLSTATE, or ``None``
    :ivar message_parameters: the values the condition's message was filled in with
    :ivar java_exception: the JVM exception (a Py4J object), or ``None``
    """

    def __init__(
        self,
        message: str,
        condition: str | None = None,
        sql_state: str | None = None,
        message_parameters: dict[str, str] | None = None,
        java_exception: Any = None,
    ) -> None:
        super().__init__(message)
        self.condition = condition
        self.sql_state = sql_state
        self.message_parameters = dict(message_parameters or {})
        self.java_exception = java_exception

    @property
    def error_id(self) -> str | None:
        """The condition, under the name earlier releases used."""
        return self.condition

    # Named as PySpark's own exceptions name them.
    def getCondition(self) -> str | None:
        """The error condition, as PySpark's own exceptions give theirs."""
        return self.condition

    def getSqlState(self) -> str | None:
        """The SQLSTATE, as PySpark's own exceptions give theirs."""
        return self.sql_state

    def getMessageParameters(self) -> dict[str, str]:
        """The message parameters, as PySpark's own exceptions give theirs."""
        return dict(self.message_parameters)


class KinesisOptionError(KinesisError, ValueError):
    """An option, argument or DataFrame the connector refuses; the message names it and says what to do."""


class KinesisAccessDeniedError(KinesisError, PermissionError):
    """Kinesis denied a call; the message names the action, the principal denied (as AWS names it) and every
    IAM action the connector needs."""


class KinesisCredentialsError(KinesisError):
    """No AWS credentials could be had, or Kinesis refused them: none found, the role could not be assumed
    (STS refused it, or could not be reached), or they expired. The message names where they come from (STS
    and the role, the default chain and what it is set up with, the keys given) and what to check."""


class KinesisStreamNotFoundError(KinesisError, LookupError):
    """The stream does not exist at the endpoint and region the options name."""


class KinesisConsumerNotFoundError(KinesisError, LookupError):
    """No enhanced fan-out consumer of that name is registered with the stream."""


class KinesisUnavailableError(KinesisError, ConnectionError):
    """Kinesis could not be reached, or its calls kept failing, for longer than the query waits."""


class KinesisDataLossError(KinesisError):
    """Records the query had not read are no longer in Kinesis (see the option ``failOnDataLoss``)."""


class KinesisCheckpointError(KinesisError):
    """The query's checkpoint cannot go on with this stream: unreadable, or for a stream since recreated."""


class KinesisWriteError(KinesisError):
    """A write failed: a row that cannot be a Kinesis record, or records Kinesis did not take in time."""


_BY_CONDITION: dict[str, type[KinesisError]] = {
    "KINESIS_ACCESS_DENIED": KinesisAccessDeniedError,
    "KINESIS_BAD_RECORD": KinesisWriteError,
    "KINESIS_CALL_FAILED": KinesisUnavailableError,
    "KINESIS_CHECKPOINT_FOREIGN": KinesisCheckpointError,
    "KINESIS_CHECKPOINT_OTHER_STREAMS": KinesisCheckpointError,
    "KINESIS_CHECKPOINT_UNREADABLE": KinesisCheckpointError,
    "KINESIS_CONNECT_CALL_UNREADABLE": KinesisError,
    "KINESIS_CONSUMER_NAME_INVALID": KinesisOptionError,
    "KINESIS_CONSUMER_NOT_ACTIVE": KinesisError,
    "KINESIS_CONSUMER_NOT_FOUND": KinesisConsumerNotFoundError,
    "KINESIS_CREDENTIALS_UNAVAILABLE": KinesisCredentialsError,
    "KINESIS_CREDENTIALS_UNREACHABLE": KinesisCredentialsError,
    "KINESIS_DATA_LOSS": KinesisDataLossError,
    "KINESIS_ENDPOINT_UNREACHABLE": KinesisUnavailableError,
    "KINESIS_OFFSET_INVALID": KinesisCheckpointError,
    "KINESIS_OPTIONS_CONFLICT": KinesisOptionError,
    "KINESIS_OPTIONS_INCOMPLETE": KinesisOptionError,
    "KINESIS_OPTION_INVALID": KinesisOptionError,
    "KINESIS_OPTION_BATCH_READ_ONLY": KinesisOptionError,
    "KINESIS_OPTION_MISSING": KinesisOptionError,
    "KINESIS_OPTION_NOT_IN_BATCH_READ": KinesisOptionError,
    "KINESIS_OPTION_NOT_IN_REAL_TIME_MODE": KinesisOptionError,
    "KINESIS_OPTION_UNKNOWN": KinesisOptionError,
    "KINESIS_PREFETCH_BROKEN": KinesisError,
    "KINESIS_PREFETCH_FAILED": KinesisUnavailableError,
    "KINESIS_RANGE_INCOMPLETE": KinesisDataLossError,
    "KINESIS_REGION_UNKNOWN": KinesisOptionError,
    "KINESIS_REGISTERED_CONSUMER_UNUSABLE": KinesisConsumerNotFoundError,
    "KINESIS_REQUEST_REJECTED": KinesisError,
    "KINESIS_SAVE_MODE_UNSUPPORTED": KinesisOptionError,
    "KINESIS_SCHEMA_FIXED": KinesisOptionError,
    "KINESIS_SINK_COLUMNS": KinesisOptionError,
    "KINESIS_SINK_STREAM_UNSET": KinesisOptionError,
    "KINESIS_START_NOT_IN_SHARD": KinesisOptionError,
    "KINESIS_STREAM_NOT_FOUND": KinesisStreamNotFoundError,
    "KINESIS_STREAM_RECREATED": KinesisCheckpointError,
    "KINESIS_UNAVAILABLE": KinesisUnavailableError,
    "KINESIS_V1_SOURCE_UNSUPPORTED": KinesisError,
    "KINESIS_WRITE_FAILED": KinesisWriteError,
    "KINESIS_WRONG_SPARK_LINE": KinesisError,
}

_KINESIS_THROWABLE = "io.github.sparkkinesis.errors.KinesisThrowable"


def error_class(condition: str) -> type[KinesisError]:
    """The Python class of a JVM error condition, or of a sub-condition (``KINESIS_STREAM_NOT_FOUND.WRITE``)
    by its condition; :class:`KinesisError` for one it does not know."""
    return _BY_CONDITION.get(condition.split(".")[0], KinesisError)


def from_java(java_exception: Any) -> KinesisError | None:
    """The connector's error in a JVM exception's cause chain, as its Python class; ``None`` if there is none.

    :param java_exception: a Py4J ``java.lang.Throwable``
    """
    from py4j.java_gateway import is_instance_of
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is None:
        return None
    seen = 0
    current = java_exception
    while current is not None and seen < 20:
        if is_instance_of(gateway, current, _KINESIS_THROWABLE):
            condition = str(current.getCondition())
            parameters = {str(k): str(v) for k, v in dict(current.getMessageParameters()).items()}
            return error_class(condition)(
                str(current.getMessage()),
                condition=condition,
                sql_state=str(current.getSqlState()),
                message_parameters=parameters,
                java_exception=current,
            )
        cause = current.getCause()
        current = None if cause is None or cause.equals(current) else cause
        seen += 1
    return None


def kinesis_cause(error: BaseException) -> KinesisError | None:
    """The connector's error behind an exception PySpark raised, such as a failed query's
    ``StreamingQueryException``; the error itself if it is one; ``None`` if the connector did not cause it.
    From a Spark Connect client, where the server sends a failed query's cause as text, it has the condition
    and the message, without the SQLSTATE and message parameters."""
    if isinstance(error, KinesisError):
        return error
    origin = getattr(error, "_origin", None)
    if origin is not None:
        return from_java(origin)
    return from_connect(error) or _from_connect_text(error)


# A Spark Connect server sends a failed query's cause as text within the query's own error: "[CONDITION]
# message", then the query's description, or the SQLSTATE of the query's error.
_CAUSE_IN_TEXT = re.compile(
    r"\[(KINESIS_[A-Z_.]+)\] (.*?)(?:\n=== Streaming Query ===| SQLSTATE: |$)", re.DOTALL
)


def _from_connect_text(error: BaseException) -> KinesisError | None:
    """The connector's error named in the text of an error a Spark Connect client raised, such as a failed
    query's ``StreamingQueryException``: its condition and message (the server sends no more of it)."""
    found = _CAUSE_IN_TEXT.search(str(error))
    if found is None:
        return None
    condition, message = found.group(1), found.group(2).strip()
    return error_class(condition)(f"[{condition}] {message}", condition=condition)


_installed = False


def install_exception_conversion() -> None:
    """Makes PySpark raise the connector's JVM errors as :class:`KinesisError` subclasses, as Delta Lake's
    Python package does for its own: wraps PySpark's conversion of JVM exceptions, which every Py4J call of
    a classic session goes through, and, where PySpark's Connect client is installed, its conversion of the
    errors a Connect server sends. A failed streaming query's ``StreamingQueryException`` is left as PySpark
    makes it. Idempotent; does nothing without PySpark."""
    global _installed
    if _installed:
        return
    _install_classic_conversion()
    _install_connect_conversion()
    _installed = True


def _install_classic_conversion() -> None:
    """Wraps PySpark's conversion of the JVM exceptions of a classic session's Py4J calls."""
    try:
        from pyspark.errors.exceptions import captured
    except ImportError:  # no PySpark, or a PySpark without it
        return
    original = captured.convert_exception

    def convert_exception(e: Any) -> Any:
        from py4j.java_gateway import is_instance_of
        from pyspark import SparkContext

        gateway = SparkContext._gateway
        streaming = gateway is not None and is_instance_of(
            gateway, e, "org.apache.spark.sql.streaming.StreamingQueryException"
        )
        kinesis = None if streaming else from_java(e)
        return kinesis if kinesis is not None else original(e)

    captured.convert_exception = convert_exception


def _install_connect_conversion() -> None:
    """Under Spark Connect the server sends an error's condition, SQLSTATE and message parameters (the
    connector's errors are ``SparkThrowable``s): the Connect client's conversion of them is wrapped to raise
    ours by condition. The client takes the conversion by name when it is first imported, so both places
    are patched: the module that defines it, and the client if it is already loaded."""
    try:
        from pyspark.errors.exceptions import connect
    except Exception:  # no Connect client installed: grpc and its kin are optional
        return
    original = getattr(connect, "convert_exception", None)
    if original is None:
        return

    def convert_exception(*args: Any, **kwargs: Any) -> Any:
        converted = original(*args, **kwargs)
        return from_connect(converted) or converted

    connect.convert_exception = convert_exception
    client = sys.modules.get("pyspark.sql.connect.client.core")
    if client is not None and getattr(client, "convert_exception", None) is original:
        setattr(client, "convert_exception", convert_exception)  # noqa: B010 (a module found at run time)


def from_connect(error: BaseException) -> KinesisError | None:
    """The connector's error a Spark Connect server sent, as its Python class; ``None`` for another error.

    :param error: the exception PySpark's Connect client made of what the server sent
    """
    get_condition = getattr(error, "getCondition", None) or getattr(error, "getErrorClass", None)
    condition = get_condition() if get_condition is not None else None
    if not condition or not condition.startswith("KINESIS_"):
        return None
    message = getattr(error, "_message", None) or str(error)
    # The client puts the JVM class of an error it has no class for before its message: "(java.Class) ...".
    message = re.sub(r"^\([\w.$]+\) ", "", message)
    if not message.startswith("["):
        message = f"[{condition}] {message}"
    return error_class(condition)(
        message,
        condition=condition,
        sql_state=error.getSqlState() if hasattr(error, "getSqlState") else None,
        message_parameters=error.getMessageParameters() if hasattr(error, "getMessageParameters") else None,
    )
