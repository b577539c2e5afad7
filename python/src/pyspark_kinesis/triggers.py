# SPDX-License-Identifier: Apache-2.0
"""Spark's real-time mode for a streaming query, on every PySpark that can run it."""

from __future__ import annotations

import inspect
from typing import Any

from pyspark.sql.streaming.readwriter import DataStreamWriter

from pyspark_kinesis import _connect, _jvm
from pyspark_kinesis.errors import KinesisError

__all__ = ["real_time"]


def real_time(writer: DataStreamWriter, interval: str = "5 minutes") -> DataStreamWriter:
    """Runs the query in Spark's real-time mode, one long batch per ``interval``.

    The same as ``writer.trigger(realTime=interval)``, which PySpark has from 4.2; this also works on
    PySpark 4.1, whose Spark has the mode but whose Python API has no argument for it (classic sessions
    only: a Spark Connect client needs PySpark 4.2 or later).

    :param writer: the query's ``DataStreamWriter``
    :param interval: how often the query checkpoints, as Spark reads intervals (``"5 minutes"``,
        ``"30 seconds"``); rows reach the sink as they come, not at that interval
    :return: the writer, to go on chaining
    :raises KinesisError: if this Spark has no real-time mode (before 4.1), or this PySpark cannot ask for it
    """
    import pyspark

    if "realTime" in inspect.signature(type(writer).trigger).parameters:
        trigger: Any = writer.trigger  # its typing stubs leave realTime out
        trigger(realTime=interval)
        return writer
    instead = (
        "Use a processing-time trigger instead, with maxFetchDuration and minFetchPeriod lowered (see the "
        "'Low latency' tip of the documentation's guide to reading and tuning)."
    )
    if _connect.is_connect(writer):
        raise KinesisError(
            "Real-time mode from a Spark Connect client needs PySpark 4.2 or later (and a Spark 4.2 or later "
            f"server): PySpark {pyspark.__version__}'s Connect client cannot ask for it. {instead}"
        )
    if not _jvm.real_time_trigger(writer, interval):
        raise KinesisError(
            "Real-time mode needs Spark 4.1 or later (on PySpark 4.1 a classic session, on 4.2 and later "
            f"any); this is PySpark {pyspark.__version__}. {instead}"
        )
    return writer
