# SPDX-License-Identifier: Apache-2.0
"""The connector's figures (lag, time since Kinesis last answered, throttling, prefetched bytes, shards)
published to Amazon CloudWatch as metrics, from every progress of every query of a session.

The JVM listener ``io.github.sparkkinesis.cloudwatch.CloudWatchMetricsListener`` does the work; it can be
enabled with no code, by the session's settings (``spark.sql.streaming.streamingQueryListeners`` naming it,
``spark.kinesis.cloudwatch.*`` for its own), or by :func:`publish_metrics_to_cloudwatch`. See the
Operations guide, "To CloudWatch".
"""

from __future__ import annotations

from collections.abc import Mapping

from pyspark.sql import SparkSession

from pyspark_kinesis import _connect, _jvm
from pyspark_kinesis.errors import KinesisError, KinesisOptionError

__all__ = ["LISTENER_CLASS", "publish_metrics_to_cloudwatch"]

#: The listener's JVM class, as ``spark.sql.streaming.streamingQueryListeners`` names it.
LISTENER_CLASS = "io.github.sparkkinesis.cloudwatch.CloudWatchMetricsListener"


def publish_metrics_to_cloudwatch(
    spark: SparkSession,
    namespace: str | None = None,
    region: str | None = None,
    endpoint: str | None = None,
    options: Mapping[str, str] | None = None,
) -> None:
    """Publishes the Kinesis sources' figures of every progress of the session's queries to CloudWatch
    (``PutMetricData``, one call per progress at most, from a thread of the connector's own: a query never
    waits for CloudWatch). Replaces such a publisher the session already has, so nothing is published twice.

    Each argument overrides the session's ``spark.kinesis.cloudwatch.<key>`` setting; what neither gives has
    its default.

    :param spark: a classic session with the connector jar (see
        :func:`pyspark_kinesis.configure_spark_with_kinesis`). A Spark Connect client cannot add a listener
        to the server: set ``spark.sql.streaming.streamingQueryListeners`` to :data:`LISTENER_CLASS`, and the
        ``spark.kinesis.cloudwatch.*`` settings, in the server's configuration instead
    :param namespace: the CloudWatch namespace (default ``SparkKinesis``)
    :param region: CloudWatch's region (default: the endpoint's, else the AWS SDK's region chain)
    :param endpoint: CloudWatch's endpoint URL (default: the region's public endpoint)
    :param options: the other settings by key: ``awsAccessKey``/``awsSecretKey``/``awsSessionToken``,
        ``roleArn``/``roleExternalId``/``roleSessionName``/``stsEndpoint``, ``maxQueuedData``
    :raises KinesisOptionError: for a bad setting, before anything changes
    :raises KinesisError: on a Spark Connect session, or without the connector jar

    ::

        publish_metrics_to_cloudwatch(spark, namespace="Orders", region="eu-west-1")
    """
    if _connect.is_connect(spark):
        raise KinesisError(
            "publish_metrics_to_cloudwatch adds a listener to the session's driver, which a Spark Connect "
            f"client cannot reach: set spark.sql.streaming.streamingQueryListeners={LISTENER_CLASS} and the "
            "spark.kinesis.cloudwatch.* settings in the Spark Connect server's configuration instead."
        )
    settings: dict[str, str] = {}
    if options is not None:
        if not isinstance(options, Mapping):
            raise KinesisOptionError(
                f"publish_metrics_to_cloudwatch: options must map setting names to values, not be a "
                f"{type(options).__name__}"
            )
        settings.update(_jvm.java_map(options))
    for key, value in (("namespace", namespace), ("region", region), ("endpoint", endpoint)):
        if value is not None:
            if not isinstance(value, str):
                raise KinesisOptionError(
                    f"publish_metrics_to_cloudwatch: {key} must be a str, not a {type(value).__name__}"
                )
            settings[key] = value
    publishing = _jvm.connector(spark, "cloudwatch.CloudWatchPublishing")
    _jvm.call(lambda: publishing.addTo(_jvm.java_session(spark), settings))
