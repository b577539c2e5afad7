# SPDX-License-Identifier: Apache-2.0
"""PySpark support for the Kinesis connector for Spark Structured Streaming.

The connector itself is a JVM data source (``spark.readStream.format("kinesis")``,
``spark.read.format("kinesis")``, ``df.write.format("kinesis")``); this package is its Python side: it puts
the connector jar it carries on a session (:func:`configure_spark_with_kinesis`), gives typed option
builders (:class:`KinesisSourceOptions`, :class:`KinesisBatchReadOptions`, :class:`KinesisSinkOptions`),
manages enhanced fan-out consumers (:class:`KinesisConsumerManager`, or
``python -m pyspark_kinesis consumers ...``), asks for Spark's real-time mode on every PySpark that can
run it (:func:`real_time`), and decodes records framed by the AWS Glue Schema Registry
(:mod:`pyspark_kinesis.functions`), and publishes the connector's metrics to CloudWatch
(:func:`publish_metrics_to_cloudwatch`). Importing it makes the connector's errors
PySpark exceptions that are also :class:`KinesisError` subclasses (see :mod:`pyspark_kinesis.errors`).
"""

from pyspark_kinesis._version import __version__
from pyspark_kinesis.cloudwatch import publish_metrics_to_cloudwatch
from pyspark_kinesis.consumers import ConsumerInfo, KinesisConsumerManager
from pyspark_kinesis.errors import (
    KinesisAccessDeniedError,
    KinesisCheckpointError,
    KinesisConsumerNotFoundError,
    KinesisCredentialsError,
    KinesisDataLossError,
    KinesisError,
    KinesisOptionError,
    KinesisStreamNotFoundError,
    KinesisUnavailableError,
    KinesisWriteError,
    install_exception_conversion,
    kinesis_cause,
)
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
from pyspark_kinesis.spark import configure_spark_with_kinesis
from pyspark_kinesis.triggers import real_time

__all__ = [
    "ConsumerIdType",
    "ConsumerInfo",
    "ConsumerMode",
    "EndPosition",
    "InitialPosition",
    "KinesisAccessDeniedError",
    "KinesisBatchReadOptions",
    "KinesisCheckpointError",
    "KinesisConsumerManager",
    "KinesisConsumerNotFoundError",
    "KinesisCredentialsError",
    "KinesisDataLossError",
    "KinesisError",
    "KinesisOptionError",
    "KinesisSinkOptions",
    "KinesisSourceOptions",
    "KinesisStreamNotFoundError",
    "KinesisUnavailableError",
    "KinesisWriteError",
    "NullData",
    "ShardSequenceNumbers",
    "__version__",
    "configure_spark_with_kinesis",
    "kinesis_cause",
    "publish_metrics_to_cloudwatch",
    "real_time",
]

install_exception_conversion()
