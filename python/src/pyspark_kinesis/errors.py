"""Errors the connector raises, as Python exceptions.

The JVM side words every error with a stable id in brackets (``[KINESIS_ACCESS_DENIED] Kinesis denied ...``);
the Python side raises the class for that id, with the JVM's message.
"""

from __future__ import annotations

__all__ = [
    "KinesisAccessDeniedError",
    "KinesisCredentialsError",
    "KinesisError",
    "KinesisOptionError",
    "KinesisStreamNotFoundError",
]


class KinesisError(Exception):
    """An error of the Kinesis connector.

    :ivar error_id: the JVM's error id, such as ``KINESIS_ACCESS_DENIED``, or ``None`` when the JVM raised
        an error of its own without one
    """

    def __init__(self, message: str, error_id: str | None = None) -> None:
        super().__init__(message)
        self.error_id = error_id


class KinesisOptionError(KinesisError, ValueError):
    """An option or argument the connector refuses; the message names it and gives an example."""


class KinesisAccessDeniedError(KinesisError, PermissionError):
    """Kinesis denied a call; the message names the action and every IAM action the connector needs."""


class KinesisCredentialsError(KinesisError):
    """No credentials could be had: none found, or the role could not be assumed."""


class KinesisStreamNotFoundError(KinesisError, LookupError):
    """The stream does not exist at the endpoint and region the options name."""


_BY_ID: dict[str, type[KinesisError]] = {
    "KINESIS_OPTION_MISSING": KinesisOptionError,
    "KINESIS_OPTION_INVALID": KinesisOptionError,
    "KINESIS_REGION_UNKNOWN": KinesisOptionError,
    "KINESIS_ACCESS_DENIED": KinesisAccessDeniedError,
    "KINESIS_CREDENTIALS_UNAVAILABLE": KinesisCredentialsError,
    "KINESIS_STREAM_NOT_FOUND": KinesisStreamNotFoundError,
}


def from_jvm_message(message: str, java_class: str) -> KinesisError:
    """The Python exception for a JVM exception's message and class name.

    :param message: the JVM exception's message, which starts with ``[ERROR_ID]`` for the connector's own
    :param java_class: the JVM exception's class name; ``java.lang.IllegalArgumentException`` without an
        id is a refused argument
    """
    if message.startswith("[KINESIS_") and "]" in message:
        error_id = message[1 : message.index("]")]
        return _BY_ID.get(error_id, KinesisError)(message, error_id)
    if java_class == "java.lang.IllegalArgumentException":
        return KinesisOptionError(message)
    return KinesisError(message)
