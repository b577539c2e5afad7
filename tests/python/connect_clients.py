# SPDX-License-Identifier: Apache-2.0
"""What the Spark Connect tests' client programs share: the code they start with, and how a test reads what
one of them reports.

A client program is ``PRELUDE`` followed by the test's own code; it prints one line ``RESULT <json>``.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

# The start of every client program: helpers, no session yet (a test may want none).
PRELUDE = """
import json, sys
import pyspark_kinesis
from pyspark.errors import IllegalArgumentException, PySparkException
from pyspark.sql import SparkSession


def report(**fields):
    print("RESULT", json.dumps(fields, default=str), flush=True)


def described(e):
    return {
        "type": type(e).__name__,
        "kinesis": isinstance(e, pyspark_kinesis.KinesisError),
        "value_error": isinstance(e, ValueError),
        "pyspark": isinstance(e, PySparkException),
        "illegal_argument": isinstance(e, IllegalArgumentException),
        "condition": getattr(e, "condition", None),
        "message": str(e),
    }


def attempt(body):
    \"\"\"{"value": what body returned} or {"raised": the exception, described}.\"\"\"
    try:
        return {"value": body()}
    except Exception as e:
        return {"raised": described(e)}


def stream_to_memory(spark, options, name):
    \"\"\"Reads the stream from its start into the memory sink (Trigger.AvailableNow): the table's rows.\"\"\"
    query = (
        spark.readStream.format("kinesis")
        .options(**options, initialPosition="trim_horizon")
        .load()
        .selectExpr("CAST(data AS STRING) AS data")
        .writeStream.format("memory")
        .queryName(name)
        .trigger(availableNow=True)
        .start()
    )
    ended = query.awaitTermination(120)
    error = query.exception()
    rows = sorted(r["data"] for r in spark.table(name).collect())
    return {"ended": ended, "error": str(error) if error else None, "rows": rows}


def batch_read(spark, options):
    \"\"\"The stream's records from its start, read as a batch: their data as text.\"\"\"
    df = spark.read.format("kinesis").options(**options, initialPosition="trim_horizon").load()
    return sorted(r["data"] for r in df.selectExpr("CAST(data AS STRING) AS data").collect())


def write(spark, options, prefix, count):
    \"\"\"Writes `count` rows as records: partition key key-<i>, data <prefix><i>.\"\"\"
    rows = spark.range(count).selectExpr(
        "CONCAT('key-', id) AS partitionKey", f"CONCAT('{prefix}', id) AS data"
    )
    rows.write.format("kinesis").options(**options).save()
    return count
"""


def result_of(ran: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """What a client program reported; fails with its output if it reported nothing."""
    results = [line for line in ran.stdout.splitlines() if line.startswith("RESULT ")]
    assert results, (
        f"the client program reported nothing (exit code {ran.returncode}):\n"
        f"{ran.stdout[-2000:]}\n{ran.stderr[-6000:]}"
    )
    found: dict[str, Any] = json.loads(results[-1][len("RESULT ") :])
    return found


def stream_records(client: Any, stream: str) -> list[tuple[str, str]]:
    """(partition key, data as text) of every record in the stream, as boto3 reads them from each shard's
    start until it is at the shard's tip."""
    found: list[tuple[str, str]] = []
    for shard in client.list_shards(StreamName=stream)["Shards"]:
        iterator = client.get_shard_iterator(
            StreamName=stream, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        for _ in range(100):
            answer = client.get_records(ShardIterator=iterator, Limit=1000)
            found += [(r["PartitionKey"], r["Data"].decode()) for r in answer["Records"]]
            iterator = answer.get("NextShardIterator")
            if not iterator or (not answer["Records"] and answer.get("MillisBehindLatest", 0) == 0):
                break
    return sorted(found)
