# SPDX-License-Identifier: Apache-2.0
"""The demo: a PySpark streaming word count over a Kinesis stream, read with this connector.

By default everything runs on this machine: a Kinesis emulator starts, a stream "demo-words" with two shards
is created, a writer thread puts lines of random words into it for --seconds, and a streaming query counts
the words, printing the table every two seconds. At the end the counts are compared with what the writer
wrote ("OK: counts match", or exit code 1), and everything is stopped.

To use an existing stream instead, give --endpoint (LocalStack, kinesis-mock, a VPC endpoint) or --region
(AWS): the demo then starts no emulator, reads new records from --stream, and writes only with --write.
Credentials come from the AWS default chain (environment, profile, ...) unless --access-key and
--secret-key are given.

    dev/demo                                                # all local
    dev/demo --region eu-west-1 --stream my-words --write   # a stream in AWS
    AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test \\
      dev/demo --endpoint http://127.0.0.1:4566 --stream demo-words --write   # LocalStack, docker-compose.yml
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import glob
import os
import random
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

# kinesis_emulator.py sits next to this file.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kinesis_emulator import FAKE_ACCESS_KEY, FAKE_SECRET_KEY, KinesisEmulator, wait_for_stream

ROOT = Path(__file__).resolve().parent.parent
JAR_GLOB = "connector-jvm/target/4.3_2.13/scala-2.13/spark-kinesis-4.3_2.13-*.jar"  # the primary line's
# The session's logging: errors only, and the connector's warnings (Spark's routine warnings stay out of the
# word counts).
LOG_CONFIG = Path(__file__).resolve().parent / "demo-log4j2.properties"
# PySpark's warning that it does not fully support the pandas it finds, which it repeats as the demo runs;
# the demo does not use pandas.
PANDAS_WARNING = "PySpark does not yet fully support pandas"

VOCABULARY = ["kinesis", "spark", "stream", "shard", "record", "batch", "offset", "checkpoint"]
TRIGGER_SECONDS = 2
CATCH_UP_SECONDS = 60  # how long the counts may take to reach what was written, once the writer is done


# ---- where the stream is ----


@dataclasses.dataclass(frozen=True)
class Target:
    """The stream to read, where it is, and the keys to use (None: the AWS default credential chain)."""

    stream: str
    region: str
    endpoint: str | None
    access_key: str | None = None
    secret_key: str | None = dataclasses.field(default=None, repr=False)  # never printed

    def client(self) -> Any:
        """A boto3 Kinesis client, for creating the stream and writing to it."""
        import boto3

        keys = {}
        if self.access_key and self.secret_key:
            keys = {"aws_access_key_id": self.access_key, "aws_secret_access_key": self.secret_key}
        return boto3.client("kinesis", region_name=self.region, endpoint_url=self.endpoint, **keys)

    def source_options(self) -> dict[str, str]:
        """The connector's options: stream, region, endpoint and keys (when given)."""
        options = {"streamName": self.stream, "region": self.region}
        if self.endpoint:
            options["endpoint"] = self.endpoint
        if self.access_key and self.secret_key:
            options["awsAccessKey"] = self.access_key
            options["awsSecretKey"] = self.secret_key
        return options


def resolve_region(args: argparse.Namespace) -> str:
    """--region, else the AWS environment or profile, else us-east-1 for an explicit endpoint."""
    import boto3

    region = args.region or boto3.session.Session().region_name
    if region:
        return str(region)
    if args.endpoint:
        return "us-east-1"
    sys.exit("error: give --region (or set AWS_REGION)")


# ---- the writer ----


class WordWriter(threading.Thread):
    """Puts a line of one to four random words into the stream about every 60 ms, for `seconds`.

    Counts every word Kinesis accepted; a put that fails ends the writer and is kept in `error`.
    """

    def __init__(self, target: Target, seconds: float) -> None:
        super().__init__(name="word-writer", daemon=True)
        self.target = target
        self.seconds = seconds
        self.words: collections.Counter[str] = collections.Counter()
        self.records = 0
        self.error: Exception | None = None
        self.stopping = threading.Event()

    def run(self) -> None:
        client = self.target.client()
        deadline = time.monotonic() + self.seconds
        try:
            while time.monotonic() < deadline and not self.stopping.is_set():
                words = random.choices(VOCABULARY, k=random.randint(1, 4))
                # Distinct partition keys spread the lines over the shards.
                client.put_record(
                    StreamName=self.target.stream,
                    Data=" ".join(words).encode(),
                    PartitionKey=f"line-{self.records}",
                )
                self.words.update(words)
                self.records += 1
                self.stopping.wait(0.06)
        except Exception as error:
            self.error = error


# ---- the sink ----


class CountPrinter:
    """A foreachBatch sink: prints each batch's complete word count table and keeps the latest one."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, batch: Any, batch_id: int) -> None:
        counts = {row["word"]: row["count"] for row in batch.collect()}
        with self._lock:
            self.counts = counts
        print(f"\nBatch {batch_id}: {sum(counts.values())} words", flush=True)
        if counts:
            print(table(counts), flush=True)

    def latest(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counts)


def table(counts: dict[str, int]) -> str:
    """The counts as a table, the most frequent word first."""
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    width = max([len("word"), *(len(word) for word in counts)])
    lines = [f"  {'word':<{width}}  count", f"  {'-' * width}  -----"]
    lines += [f"  {word:<{width}}  {count:5d}" for word, count in rows]
    return "\n".join(lines)


# ---- the demo ----


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="dev/demo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stream", default="demo-words", help="the stream to read (default: %(default)s)")
    parser.add_argument("--region", help="the stream's AWS region; reads an existing stream")
    parser.add_argument("--endpoint", help="a Kinesis endpoint URL; reads an existing stream there")
    parser.add_argument("--access-key", help="AWS access key id (default: the AWS credential chain)")
    parser.add_argument("--secret-key", help="the secret key of --access-key")
    parser.add_argument("--write", action="store_true", help="write words to an existing stream too")
    parser.add_argument(
        "--seconds", type=float, default=12.0, help="how long to write words, or to read (default: 12)"
    )
    parser.add_argument("--jar", type=Path, help=f"the connector jar (default: the built {JAR_GLOB})")
    args = parser.parse_args()
    if bool(args.access_key) != bool(args.secret_key):
        parser.error("give --access-key and --secret-key together")
    return args


def connector_jar(explicit: Path | None) -> Path:
    """--jar, else SPARK_KINESIS_JAR, else the jar the build assembled."""
    if explicit is None and os.environ.get("SPARK_KINESIS_JAR"):
        explicit = Path(os.environ["SPARK_KINESIS_JAR"])
    if explicit is not None:
        if not explicit.is_file():
            sys.exit(f"error: the connector jar {explicit} does not exist")
        return explicit
    jars = [
        jar
        for jar in sorted(glob.glob(str(ROOT / JAR_GLOB)))
        if not jar.endswith(("-tests.jar", "-sources.jar", "-javadoc.jar"))
    ]
    if not jars:
        sys.exit(f"error: the connector jar is not built (no {JAR_GLOB}): run `dev/sbt spark43_213/assembly`")
    return Path(jars[-1])


def wait_for(what: str, done: Callable[[], bool], query: Any, seconds: float) -> bool:
    """Polls `done()` until it holds, the query fails (raises) or `seconds` pass (returns False)."""
    deadline = time.monotonic() + seconds
    while not done():
        if query.exception() is not None:
            raise RuntimeError(f"the query failed while waiting for {what}: {query.exception()}")
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def run(args: argparse.Namespace, cleanup: contextlib.ExitStack) -> int:
    jar = connector_jar(args.jar)
    local = not (args.endpoint or args.region)

    # 1. A stream to read: a new one in a local emulator, or the one given.
    if local:
        emulator = cleanup.enter_context(KinesisEmulator())
        target = Target(args.stream, emulator.region, emulator.endpoint, FAKE_ACCESS_KEY, FAKE_SECRET_KEY)
        client = target.client()
        client.create_stream(StreamName=target.stream, ShardCount=2)
        wait_for_stream(client, target.stream)
        print(f"Kinesis emulator at {target.endpoint}; created stream '{target.stream}' with 2 shards.")
    else:
        target = Target(args.stream, resolve_region(args), args.endpoint, args.access_key, args.secret_key)
        where = target.endpoint or "AWS"
        print(f"Reading stream '{target.stream}' at {where} (region {target.region}).")

    # 2. Spark, with the connector jar.
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("kinesis-word-count")
        .config("spark.jars", str(jar))
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={LOG_CONFIG}")
        .getOrCreate()
    )
    cleanup.callback(spark.stop)

    # 3. The word count: Kinesis records -> lines -> words -> counts.
    records = (
        spark.readStream.format("kinesis")
        .options(**target.source_options())
        # A new local stream is read from its start; an existing one from the records that arrive from now.
        .option("initialPosition", "trim_horizon" if local else "latest")
        .load()
    )
    words = records.select(F.explode(F.split(F.col("data").cast("string"), r"\s+")).alias("word"))
    counts = words.where(F.col("word") != "").groupBy("word").count()

    printer = CountPrinter()
    checkpoint = cleanup.enter_context(tempfile.TemporaryDirectory(prefix="kinesis-demo-"))
    query = (
        counts.writeStream.outputMode("complete")
        .foreachBatch(printer)
        .option("checkpointLocation", checkpoint)
        .trigger(processingTime=f"{TRIGGER_SECONDS} seconds")
        .start()
    )
    cleanup.callback(query.stop)
    # The first trigger fixes where the query starts; only then is it sure to see everything written next.
    if not wait_for("the query to start", lambda: query.lastProgress is not None, query, 60):
        print("The query did not start within 60 s.", file=sys.stderr)
        return 1

    # 4. Without a writer, just watch the stream for a while.
    if not (local or args.write):
        print(f"Counting the words of new records for {args.seconds:.0f} s ...")
        wait_for("the end of the demo", lambda: False, query, args.seconds)
        print(f"\nFinal counts:\n{table(printer.latest())}")
        return 0

    # 5. Write words for a while, then wait until the counts have caught up with them.
    writer = WordWriter(target, args.seconds)
    cleanup.callback(writer.stopping.set)
    print(f"Writing lines of random words to '{target.stream}' for {args.seconds:.0f} s ...")
    writer.start()
    wait_for("the writer", lambda: not writer.is_alive(), query, args.seconds + 60)
    if writer.is_alive() or writer.error is not None:
        print(f"The writer failed: {writer.error or 'it did not finish in time'}", file=sys.stderr)
        return 1
    expected = dict(writer.words)
    print(
        f"\nThe writer is done: {writer.records} records, {sum(expected.values())} words. "
        "Waiting for the counts to catch up ..."
    )
    wait_for("the counts", lambda: printer.latest() == expected, query, CATCH_UP_SECONDS)

    counted = printer.latest()
    print(f"\nFinal counts:\n{table(counted)}")
    if counted == expected:
        print(f"\nOK: counts match ({sum(expected.values())} words written, the same counted).")
        return 0
    print(f"\nMISMATCH after {CATCH_UP_SECONDS} s:", file=sys.stderr)
    for word in sorted(expected.keys() | counted.keys()):
        if expected.get(word, 0) != counted.get(word, 0):
            print(f"  {word}: wrote {expected.get(word, 0)}, counted {counted.get(word, 0)}", file=sys.stderr)
    return 1


def main() -> int:
    args = parse_args()
    # Before the JVM starts: Spark binds to loopback, and the AWS SDK and boto3 do not stall on the EC2
    # instance metadata service (set AWS_EC2_METADATA_DISABLED=false on EC2 to use the instance's role).
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
    # PySpark's pandas warning, here and in the Python processes Spark starts (they read PYTHONWARNINGS).
    warnings.filterwarnings("ignore", message=PANDAS_WARNING, category=FutureWarning)
    quiet = f"ignore:{PANDAS_WARNING}:FutureWarning"
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), quiet]))
    with contextlib.ExitStack() as cleanup:  # stops the query, Spark and the emulator, in that order
        try:
            return run(args, cleanup)
        except KeyboardInterrupt:
            print("\nInterrupted: stopping.", file=sys.stderr)
            return 130
        except (RuntimeError, BotoCoreError, ClientError) as failure:
            print(f"\n{type(failure).__name__}: {failure}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main())
