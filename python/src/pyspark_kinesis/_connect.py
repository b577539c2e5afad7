# SPDX-License-Identifier: Apache-2.0
"""The one place that reaches into PySpark's Spark Connect client (its plan classes), as ``_jvm`` is for py4j.

Under Spark Connect the consumer manager's calls go to the connector's server plugin
(``io.github.sparkkinesis.connect.KinesisConnectPlugin``) as a relation extension: a protobuf ``Any`` whose
type URL names the call and whose value is the call as JSON, in the form the plugin's
``ConsumerManagerCall`` documents. The server runs the call once, when the DataFrame is collected, and
answers in the columns of the JVM manager's ``listConsumers``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pyspark_kinesis.errors import KinesisError

PLUGIN_CLASS = "io.github.sparkkinesis.connect.KinesisConnectPlugin"
PLUGIN_SETTING = "spark.connect.extensions.relation.classes"

_TYPE_URL = "type.googleapis.com/io.github.sparkkinesis.connect.ConsumerManagerCall"
_VERSION = 1

SERVER_SETUP = (
    "Give the Spark Connect server the connector when it starts, with the plugin enabled: "
    "start-connect-server.sh --packages io.github.sparkkinesis:spark-kinesis-<spark>_<scala>:<version> "
    "(or --jars <the connector jar>) "
    f"--conf {PLUGIN_SETTING}={PLUGIN_CLASS} "
    "--conf spark.sql.extensions=io.github.sparkkinesis.KinesisSparkExtensions (the connector's SQL "
    "functions, such as from_glue_registry). "
    "A jar a client adds with spark.addArtifacts(...) serves reads and writes of format('kinesis') in that "
    "session, but not the consumer manager, whose plugin the server loads at its start. The plugin needs a "
    "Spark 4.0 or later server."
)


def is_connect(spark: Any) -> bool:
    """Whether ``spark`` is a Spark Connect session (PySpark's ``pyspark.sql.connect`` classes)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def call(
    spark: Any,
    action: str,
    options: Mapping[str, str],
    stream: str | None = None,
    consumer_name: str | None = None,
) -> list[Any]:
    """Runs a call of the consumer manager on the server's plugin; the rows it answers with.

    :raises KinesisError: the connector's error, as its subclass; or, if the server has no plugin, one that
        says how to give it the plugin
    """
    payload = {
        "version": _VERSION,
        "action": action,
        "options": {str(k): str(v) for k, v in options.items()},
        "stream": stream,
        "consumerName": consumer_name,
    }
    dataframe = _dataframe(spark, json.dumps(payload).encode("utf-8"))
    try:
        rows: list[Any] = dataframe.collect()
    except KinesisError:
        raise
    except Exception as e:
        if "No handler found for extension" in str(e):
            raise KinesisError(
                "This Spark Connect server does not run the Kinesis connector's plugin, which the consumer "
                f"manager calls. {SERVER_SETUP}"
            ) from None
        raise
    return rows


def _dataframe(spark: Any, payload: bytes) -> Any:
    """A Connect DataFrame over the relation extension that carries ``payload``."""
    import pyspark

    if int(pyspark.__version__.split(".")[0]) < 4:
        raise KinesisError(
            "The consumer manager on a Spark Connect session needs PySpark 4.0 or later (and a Spark 4.0 "
            f"or later server); this is PySpark {pyspark.__version__}. Use a classic session, or the command "
            "line python -m pyspark_kinesis consumers."
        )
    from pyspark.sql.connect.dataframe import DataFrame
    from pyspark.sql.connect.plan import LogicalPlan

    class _ConsumerManagerCall(LogicalPlan):
        def __init__(self) -> None:
            super().__init__(None)

        def plan(self, session: Any) -> Any:
            relation = self._create_proto_relation()
            relation.extension.type_url = _TYPE_URL
            relation.extension.value = payload
            return relation

    return DataFrame(_ConsumerManagerCall(), spark)
