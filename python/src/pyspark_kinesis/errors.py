# SPDX-License-Identifier: Apache-2.0
"""Errors the connector raises, as PySpark exceptions.

Every error of the JVM side is a Spark error condition (``KINESIS_ACCESS_DENIED``, ...; the documentation's
error reference lists them). Once this package is imported, a connector error from ``load()``, ``start()``,
``save()``, ``collect()`` or the consumer manager is raised as the exception PySpark itself makes of that JVM
error (``IllegalArgumentException`` for a refused option, else a ``CapturedException`` on a classic session;
the Connect client's classes on Spark Connect), which is also the :class:`KinesisError` subclass of the
condition's family: ``except AnalysisException``, ``except IllegalArgumentException``, ``except
PySparkException`` and ``except KinesisOptionError`` all work, and ``getCondition()``,
``getMessageParameters()`` and ``getSqlState()`` answer as for Spark's own errors. Which class a condition
has comes from ``_error_conditions.json``, generated from the JVM's declarations.

A streaming query that fails stays PySpark's ``StreamingQueryException``; :func:`kinesis_cause` finds the
connector's error in it.

How the errors reach Python. On Spark Connect (PySpark 4.0 and later) the client maps a server error's JVM
class to its Python class through a table (``EXCEPTION_CLASS_MAPPING``); this package adds the connector's
two JVM classes to it and replaces nothing. A classic session's conversion of JVM exceptions
(``pyspark.errors.exceptions.captured.convert_exception``) has no such table, so, as Delta Lake's package
does for its own errors, this package wraps it: the wrapper calls the function that was there before
(PySpark's own, or whatever another library put there) and only marks the result as the connector's when the
JVM error is the connector's. Installing is idempotent, and the wrapper can be told by ``_kinesis_wrapped``.
PySpark 3.5's Connect client, which has no table either, is wrapped the same way.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, cast

from pyspark.errors import IllegalArgumentException, PySparkException

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


class KinesisError(PySparkException):
    """An error of the Kinesis connector: a ``PySparkException`` with the connector's error condition.

    Raised from a JVM error, it is also the PySpark exception PySpark makes of that error (see the module).

    :ivar condition: the error condition, such as ``KINESIS_ACCESS_DENIED`` (``getCondition()``), or ``None``
        for an error of the Python side that has none (the connector jar missing from a session, ...)
    :ivar sql_state: the condition's SQLSTATE (``getSqlState()``), or ``None``
    :ivar java_exception: the connector's JVM exception (a Py4J object) on a classic session, else ``None``
    """

    #: The condition an error of this class raised by the Python side has unless it names another.
    default_condition: str | None = None

    condition: str | None
    sql_state: str | None
    java_exception: Any
    _kinesis_parameters: dict[str, str]

    def __init__(
        self,
        message: str,
        condition: str | None = None,
        message_parameters: Mapping[str, str] | None = None,
    ) -> None:
        """An error raised by the Python side: ``message`` says what is wrong and what to do (``str()`` puts
        the condition before it, as PySpark does)."""
        super().__init__(message=message)
        condition = condition or self.default_condition
        self._describe(condition, _sql_state(condition), message_parameters, None)

    def _describe(
        self,
        condition: str | None,
        sql_state: str | None,
        parameters: Mapping[str, str] | None,
        java_exception: Any,
    ) -> None:
        self.condition = condition
        self.sql_state = sql_state
        self._kinesis_parameters = {str(k): str(v) for k, v in (parameters or {}).items()}
        self.java_exception = java_exception

    def getCondition(self) -> str | None:
        """The error condition, such as ``KINESIS_STREAM_NOT_FOUND``."""
        return self.condition

    def getErrorClass(self) -> str | None:
        """The error condition, under the name PySpark 3.5 gives it."""
        return self.condition

    def getSqlState(self) -> str | None:
        """The condition's SQLSTATE."""
        return self.sql_state

    def getMessageParameters(self) -> dict[str, str]:
        """The values the condition's message was filled in with."""
        return dict(self._kinesis_parameters)


class KinesisOptionError(KinesisError, IllegalArgumentException, ValueError):
    """An option, argument or DataFrame the connector refuses; the message names it and says what to do. An
    ``IllegalArgumentException`` of PySpark's, and a ``ValueError``."""

    default_condition = "KINESIS_OPTION_INVALID"


class KinesisAccessDeniedError(KinesisError):
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


class KinesisUnavailableError(KinesisError):
    """Kinesis could not be reached, or its calls kept failing, for longer than the query waits."""


class KinesisDataLossError(KinesisError):
    """Records the query had not read are no longer in Kinesis (see the option ``failOnDataLoss``)."""


class KinesisCheckpointError(KinesisError):
    """The query's checkpoint cannot go on with this stream: unreadable, or for a stream since recreated."""


class KinesisWriteError(KinesisError):
    """A write failed: a row that cannot be a Kinesis record, or records Kinesis did not take in time."""


def _load_conditions() -> dict[str, dict[str, str]]:
    text = (Path(__file__).parent / "_error_conditions.json").read_text(encoding="utf-8")
    return cast("dict[str, dict[str, str]]", json.loads(text))


# Each condition's SQLSTATE and the name of its family's class above, generated from the JVM's declarations
# (ErrorCondition); a JVM test keeps the file in step.
_CONDITIONS = _load_conditions()
_BY_CONDITION: dict[str, type[KinesisError]] = {
    condition: cast("type[KinesisError]", globals()[row["pythonClass"]])
    for condition, row in _CONDITIONS.items()
}


def error_class(condition: str) -> type[KinesisError]:
    """The Python class of a JVM error condition, or of a sub-condition (``KINESIS_STREAM_NOT_FOUND.WRITE``)
    by its condition; :class:`KinesisError` for one it does not know."""
    return _BY_CONDITION.get(condition.split(".")[0], KinesisError)


def _sql_state(condition: str | None) -> str | None:
    row = _CONDITIONS.get(condition.split(".")[0]) if condition else None
    return row["sqlState"] if row else None


_JOINED: dict[tuple[type[KinesisError], type[PySparkException]], type[KinesisError]] = {}


def _joined(kinesis_class: type[KinesisError], pyspark_class: type[PySparkException]) -> type[KinesisError]:
    """The class of a connector error PySpark made: the condition's class, then PySpark's (one per pair).
    Named as the condition's class: a traceback shows ``pyspark_kinesis.errors.KinesisOptionError``."""
    joined = _JOINED.get((kinesis_class, pyspark_class))
    if joined is None:
        attributes = {
            "__module__": __name__,
            "__qualname__": kinesis_class.__qualname__,
            "__doc__": kinesis_class.__doc__,
        }
        joined = type(kinesis_class.__name__, (kinesis_class, pyspark_class), attributes)
        _JOINED[(kinesis_class, pyspark_class)] = joined
    return joined


def _marked(
    error: PySparkException,
    condition: str,
    sql_state: str | None,
    parameters: Mapping[str, str] | None,
    java_exception: Any = None,
) -> KinesisError:
    """``error``, the exception PySpark made of a connector error, as the condition's class too: its class
    becomes one that derives from both (nothing else of it changes: message, stack trace, cause)."""
    base = type(error)
    if isinstance(error, KinesisError):  # marked already: PySpark's class is the second base
        base = next(
            c for c in base.__mro__ if not issubclass(c, KinesisError) and issubclass(c, PySparkException)
        )
    error.__class__ = _joined(error_class(condition), base)
    marked = cast(KinesisError, error)
    marked._describe(condition, sql_state or _sql_state(condition), parameters, java_exception)
    return marked


# ---- classic sessions: the JVM exception behind a Py4J call ----

_KINESIS_THROWABLE = "io.github.sparkkinesis.errors.KinesisThrowable"
_STREAMING_QUERY_EXCEPTION = "org.apache.spark.sql.streaming.StreamingQueryException"


def _kinesis_throwable(java_exception: Any) -> Any:
    """The connector's exception in a JVM exception's cause chain (a Py4J object), or ``None``."""
    from py4j.java_gateway import is_instance_of
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is None:
        return None
    current = java_exception
    for _ in range(20):
        if current is None:
            return None
        if is_instance_of(gateway, current, _KINESIS_THROWABLE):
            return current
        cause = current.getCause()
        current = None if cause is None or cause.equals(current) else cause
    return None


def from_java(java_exception: Any, convert: Callable[[Any], Any] | None = None) -> KinesisError | None:
    """The connector's error in a JVM exception's cause chain, as the PySpark exception PySpark makes of it,
    marked as the condition's class; ``None`` if there is none.

    :param java_exception: a Py4J ``java.lang.Throwable``
    :param convert: PySpark's conversion of a JVM exception (the one this module wraps, by default)
    """
    from pyspark.errors.exceptions import captured

    found = _kinesis_throwable(java_exception)
    if found is None:
        return None
    if convert is None:  # PySpark's, not this module's wrapper of it
        installed = captured.convert_exception
        convert = cast("Callable[[Any], Any]", getattr(installed, "__wrapped__", installed))
    pyspark_error = convert(found)
    if not isinstance(pyspark_error, captured.CapturedException) or isinstance(
        pyspark_error, captured.UnknownException
    ):
        # A JVM class PySpark has no class for (the connector's RuntimeExceptions): PySpark would raise the
        # bare Py4J error; the connector's is a CapturedException of the connector's JVM exception.
        pyspark_error = captured.CapturedException(origin=found)
    return _marked(
        pyspark_error,
        str(found.getCondition()),
        str(found.getSqlState()),
        {str(k): str(v) for k, v in dict(found.getMessageParameters()).items()},
        java_exception=found,
    )


def _install_classic_conversion() -> None:
    """Wraps PySpark's conversion of the JVM exceptions of a classic session's Py4J calls (see the module)."""
    try:
        from pyspark.errors.exceptions import captured
    except ImportError:  # PySpark's Connect client alone: no classic sessions
        return
    original = captured.convert_exception
    if getattr(original, "_kinesis_wrapped", False):
        return

    def convert_exception(e: Any) -> Any:
        from py4j.java_gateway import is_instance_of
        from pyspark import SparkContext

        gateway = SparkContext._gateway
        if gateway is not None and not is_instance_of(gateway, e, _STREAMING_QUERY_EXCEPTION):
            kinesis = from_java(e, original)
            if kinesis is not None:
                return kinesis
        return original(e)

    convert_exception._kinesis_wrapped = True  # type: ignore[attr-defined]
    functools.update_wrapper(convert_exception, original)
    captured.convert_exception = convert_exception


# ---- Spark Connect: the error a server sends ----

_JVM_CLASSES = (
    "io.github.sparkkinesis.errors.KinesisIllegalArgumentException",
    "io.github.sparkkinesis.errors.KinesisException",
)


def _install_connect_conversion() -> None:
    """Adds the connector's JVM classes to the Connect client's table of them (PySpark 4.0 and later); on
    PySpark 3.5, wraps its conversion (see the module)."""
    try:
        from pyspark.errors.exceptions import connect
    except Exception:  # no Connect client installed: grpc and its kin are optional
        return
    table = getattr(connect, "EXCEPTION_CLASS_MAPPING", None)
    if isinstance(table, dict):
        table.setdefault(_JVM_CLASSES[0], _connect_factory(connect.IllegalArgumentException))
        table.setdefault(_JVM_CLASSES[1], _connect_factory(connect.SparkConnectGrpcException))
        return
    original = getattr(connect, "convert_exception", None)
    if original is None or getattr(original, "_kinesis_wrapped", False):
        return

    def convert_exception(*args: Any, **kwargs: Any) -> Any:
        converted = original(*args, **kwargs)
        return from_connect(converted) or converted

    convert_exception._kinesis_wrapped = True  # type: ignore[attr-defined]
    functools.update_wrapper(convert_exception, original)
    connect.convert_exception = convert_exception
    # The client takes the function by name when it is first imported.
    client = sys.modules.get("pyspark.sql.connect.client.core")
    if client is not None and getattr(client, "convert_exception", None) is original:
        setattr(client, "convert_exception", convert_exception)  # noqa: B010 (a module found at run time)


def _connect_factory(pyspark_class: type[PySparkException]) -> Callable[..., PySparkException]:
    """What the Connect client calls, as it would ``pyspark_class``, for an error of the connector's JVM
    classes: ``pyspark_class``'s exception, marked as its condition's class."""

    def make(message: str, **kwargs: Any) -> PySparkException:
        error = pyspark_class(message, **kwargs)
        return from_connect(error) or error

    make._kinesis_wrapped = True  # type: ignore[attr-defined]
    return make


def from_connect(error: BaseException) -> KinesisError | None:
    """The connector's error a Spark Connect server sent, marked as its condition's class; ``None`` for
    another error.

    :param error: the exception PySpark's Connect client made of what the server sent
    """
    if not isinstance(error, PySparkException):
        return None
    get_condition = getattr(error, "getCondition", None) or error.getErrorClass
    condition = get_condition()
    if not condition or not condition.startswith("KINESIS_"):
        return None
    return _marked(error, condition, error.getSqlState(), error.getMessageParameters())


# ---- a failed query's cause ----


def kinesis_cause(error: BaseException) -> KinesisError | None:
    """The connector's error behind an exception PySpark raised, such as a failed query's
    ``StreamingQueryException``; the error itself if it is one; ``None`` if the connector did not cause it.
    From a Spark Connect client, where the server sends a failed query's cause as text, it has the condition
    and the message, without the message parameters."""
    if isinstance(error, KinesisError):
        return error
    origin = getattr(error, "_origin", None)
    if origin is not None:
        return from_java(origin)
    return _from_connect_text(error)


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
    return error_class(condition)(message, condition=condition)


def install_exception_conversion() -> None:
    """Makes PySpark raise the connector's JVM errors as PySpark exceptions that are also the connector's
    :class:`KinesisError` subclasses, on classic sessions and Spark Connect (see the module for how).
    Idempotent."""
    _install_classic_conversion()
    _install_connect_conversion()
