"""The demo: a PySpark streaming word count over a Kinesis stream, read with this connector.

By default everything is local: a Kinesis emulator starts, a writer thread puts lines of words into a
two-shard stream for a while, and a streaming query counts the words and prints the table as it grows. At
the end the counts are checked against what was written, and everything stops.

Run it with `dev/demo` (which builds the jar and the Python environment first). To read a real stream
instead, give `--stream` and `--region` (and `--endpoint` for LocalStack or a VPC endpoint); it then writes
only with `--write`, and authenticates with the AWS default credential chain unless given keys.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kinesis_emulator import FAKE_ACCESS_KEY, FAKE_SECRET_KEY, KinesisEmulator, wait_for_stream

VOCABULARY = ["kinesis", "spark", "stream", "shard", "record", "batch", "offset", "checkpoint"]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jar", required=True, help="the connector jar (dev/demo passes the built one)")
    parser.add_argument("--stream", help="read this existing stream instead of a local one")
    parser.add_argument("--region", default=None, help="the stream's region")
    parser.add_argument("--endpoint", default=None, help="a Kinesis endpoint URL (LocalStack, VPC endpoint)")
    parser.add_argument(
        "--access-key", default=None, help="AWS access key id (default: the credential chain)"
    )
    parser.add_argument("--secret-key", default=None, help="AWS secret key of --access-key")
    parser.add_argument("--write", action="store_true", help="also write words to --stream")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to write and count")
    return parser.parse_args()


def kinesis_client(endpoint: str | None, region: str | None, keys: dict[str, str]) -> Any:
    import boto3

    credentials = {}
    if keys:
        credentials = {
            "aws_access_key_id": keys["awsAccessKey"],
            "aws_secret_access_key": keys["awsSecretKey"],
        }
    return boto3.client("kinesis", endpoint_url=endpoint, region_name=region, **credentials)


def write_words(client: Any, stream: str, seconds: float, written: collections.Counter[str]) -> None:
    """Puts a line of a few random words every 50 ms; counts every word it wrote."""
    deadline = time.monotonic() + seconds
    line_number = 0
    while time.monotonic() < deadline:
        words = random.choices(VOCABULARY, k=random.randint(1, 5))
        client.put_record(StreamName=stream, Data=" ".join(words).encode(), PartitionKey=str(line_number))
        written.update(words)
        line_number += 1
        time.sleep(0.05)


def main() -> int:
    args = parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    local = args.stream is None
    with ExitStack() as cleanup:
        if local:
            emulator = cleanup.enter_context(KinesisEmulator())
            endpoint, region, stream = emulator.endpoint, emulator.region, "demo-words"
            keys = {"awsAccessKey": FAKE_ACCESS_KEY, "awsSecretKey": FAKE_SECRET_KEY}
            client = kinesis_client(endpoint, region, keys)
            client.create_stream(StreamName=stream, ShardCount=2)
            wait_for_stream(client, stream)
            print(f"Started a local Kinesis emulator at {endpoint} with a 2-shard stream '{stream}'.")
        else:
            endpoint, region, stream = args.endpoint, args.region, args.stream
            keys = {}
            if args.access_key or args.secret_key:
                keys = {"awsAccessKey": args.access_key or "", "awsSecretKey": args.secret_key or ""}
            client = kinesis_client(endpoint, region, keys)

        from pyspark.sql import SparkSession
        from pyspark.sql import functions as F

        spark = (
            SparkSession.builder.master("local[2]")
            .appName("kinesis-word-count")
            .config("spark.jars", args.jar)
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.ui.enabled", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("WARN")
        cleanup.callback(spark.stop)

        # The connector: every option has the Databricks name; a bad one fails right here, at load().
        reader = spark.readStream.format("kinesis").option("streamName", stream)
        reader = reader.option("initialPosition", "trim_horizon" if local else "latest")
        for key, value in {"region": region, "endpoint": endpoint, **keys}.items():
            if value:
                reader = reader.option(key, value)
        lines = reader.load()

        counts = (
            lines.select(F.explode(F.split(F.col("data").cast("string"), " ")).alias("word"))
            .groupBy("word")
            .count()
        )
        query = (
            counts.writeStream.outputMode("complete")
            .format("memory")
            .queryName("word_counts")
            .trigger(processingTime="2 seconds")
            .start()
        )
        cleanup.callback(query.stop)

        written: collections.Counter[str] = collections.Counter()
        writer = None
        if local or args.write:
            writer = threading.Thread(
                target=write_words, args=(client, stream, args.seconds, written), daemon=True
            )
            writer.start()
            print(f"Writing lines of words to '{stream}' for {args.seconds:.0f} s ...")

        def counted() -> dict[str, int]:
            return {r["word"]: r["count"] for r in spark.sql("SELECT * FROM word_counts").collect()}

        deadline = time.monotonic() + args.seconds + 60
        last_shown: dict[str, int] = {}
        while time.monotonic() < deadline:
            time.sleep(2)
            if query.exception() is not None:
                print(f"The query failed: {query.exception()}", file=sys.stderr)
                return 1
            now = counted()
            if now != last_shown:
                total = sum(now.values())
                print(f"{total:6d} words: " + ", ".join(f"{w}={c}" for w, c in sorted(now.items())))
                last_shown = now
            writing = writer is not None and writer.is_alive()
            if not writing and (writer is None or now == dict(written)):
                break

        if writer is None:
            print("Done (read only: nothing to compare with).")
            return 0
        if counted() == dict(written):
            print(f"OK: counts match the {sum(written.values())} words written.")
            return 0
        print(f"MISMATCH: wrote {dict(written)}, counted {counted()}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
