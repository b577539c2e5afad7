"""PySpark support for the Kinesis connector for Spark Structured Streaming.

The connector itself is a JVM data source (``spark.readStream.format("kinesis")``); this package is its
Python side.
"""

__all__ = ["__version__"]

__version__ = "0.1.0.dev0"
