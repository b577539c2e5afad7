# SPDX-License-Identifier: Apache-2.0
"""Where a query of this connector starts so that it goes on exactly where a stopped query of the awslabs
connector (``format("aws-kinesis")``) left off: reads that query's checkpoint (a local copy) and prints the
``initialPosition`` to give the new query, a streaming query's offset in this connector's form.

    aws s3 sync s3://my-bucket/checkpoints/orders ./old-checkpoint
    python awslabs_start_position.py ./old-checkpoint > start.json

The awslabs connector does not record in Spark's offset log where a batch ended: its offset for batch N holds
where batch N *started* in each shard, and its tasks write where they stopped to a store of its own, by
default ``<checkpoint>/sources/<n>/shard-source/<batch>/<shardId>`` (``kinesis.metadataPath`` moves it;
``kinesis.metadataCommitterType`` DYNAMODB puts it in a DynamoDB table). This script takes the last batch
Spark committed (``<checkpoint>/commits/``), that batch's offset, and the positions its tasks stored, and
translates every shard's position:

    AFTER_SEQUENCE_NUMBER s          -> {"kind": "after", "seq": s}   (inside a KPL aggregate: with "sub")
    AT_SEQUENCE_NUMBER s             -> {"kind": "at", "seq": s}
    TRIM_HORIZON                     -> {"kind": "trim_horizon"}
    AT_TIMESTAMP ms                  -> {"kind": "at_timestamp", "ms": ms}
    LATEST                           -> {"kind": "at_timestamp", "ms": <the last batch's start>}
    SHARD_END                        -> {"kind": "shard_end"}

LATEST is what the awslabs connector stores for a shard in which a batch found nothing after its start
time; the batch's start is as late as the old query had read that shard. Shards the old query never saw
(created after its last batch) are not named, and the new query reads them from their start, parents first.

Standard library only; Python 3.9 or newer. Run with ``--help`` for the options.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any


class MigrationError(Exception):
    """The checkpoint does not hold what is needed; the message says what is missing and what to do."""


def last_committed_batch(checkpoint: Path) -> int:
    """The id of the last batch Spark committed in ``checkpoint``."""
    commits = checkpoint / "commits"
    ids = [int(p.name) for p in commits.iterdir() if p.name.isdigit()] if commits.is_dir() else []
    if not ids:
        raise MigrationError(
            f"{commits} holds no committed batch: the old query never finished a batch, so there is no "
            "position to go on from; start the new query with the old one's initialPosition"
        )
    return max(ids)


def read_offset(checkpoint: Path, batch: int, source: int) -> tuple[dict[str, Any], int]:
    """The awslabs offset of ``source`` in batch ``batch``'s offset file, and the batch's start (epoch ms)."""
    path = checkpoint / "offsets" / str(batch)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise MigrationError(f"{path} is missing: copy the whole checkpoint folder") from None
    # Spark's offset file: a version line, the batch's metadata, then one line per source of the query.
    if len(lines) < 3 + source or not lines[0].startswith("v"):
        raise MigrationError(f"{path} is not a Spark offset file with a line for source {source}")
    metadata = json.loads(lines[1])
    line = lines[2 + source]
    if line.strip() == "-":
        raise MigrationError(f"{path} has no offset for source {source}")
    offset = json.loads(line)
    if not isinstance(offset, dict) or "metadata" not in offset:
        raise MigrationError(
            f'source {source} of {path} is not an offset of the awslabs connector (it has no "metadata"); '
            "give --source the index of the Kinesis source among the query's sources"
        )
    return offset, int(metadata.get("batchTimestampMs", 0))


def stored_ends(metadata_root: Path, batch: int) -> dict[str, dict[str, Any]]:
    """Where the tasks of batch ``batch`` stopped in each shard, from the awslabs connector's files."""
    folder = metadata_root / "shard-source" / str(batch)
    if not folder.is_dir():
        raise MigrationError(
            f"{folder} is missing: the awslabs connector keeps its tasks' positions there (or under "
            "kinesis.metadataPath, if the old query set it: give it as --metadata-path; or in DynamoDB: "
            "use --dynamodb-items)"
        )
    return {
        p.name: json.loads(p.read_text(encoding="utf-8"))
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.startswith(".")
    }


def dynamodb_ends(items_file: Path, batch: int) -> dict[str, dict[str, Any]]:
    """The same from ``aws dynamodb query`` (or ``scan``) output of the awslabs connector's table."""
    items = json.loads(items_file.read_text(encoding="utf-8")).get("Items", [])
    ends = {
        item["metadataSortKey"]["S"]: json.loads(item["metadataValue"]["S"])
        for item in items
        if item.get("metadataKey", {}).get("S") == str(batch)
    }
    if not ends:
        raise MigrationError(f'{items_file} has no item of batch {batch} (metadataKey "{batch}")')
    return ends


def _flag(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() == "true"


def _sequence_number(value: Any, shard: str) -> str:
    text = str(value)
    if not text.isdigit():
        raise MigrationError(f"shard {shard} has the sequence number {text!r}, which is not a number")
    return text


def position(info: dict[str, Any], shard: str, batch_start_ms: int) -> dict[str, Any]:
    """One shard's awslabs position in this connector's offset form."""
    kind = str(info.get("iteratorType", "")).upper()
    where = info.get("iteratorPosition", "")
    sub = int(info.get("subSequenceNumber", -1))
    last = _flag(info.get("isLast", True))
    if kind == "AFTER_SEQUENCE_NUMBER":
        after: dict[str, Any] = {"kind": "after", "seq": _sequence_number(where, shard)}
        if sub >= 0 and not last:
            # Stopped inside a KPL aggregate: its user records up to and including `sub` were read.
            after["sub"] = sub
        return after
    if kind == "AT_SEQUENCE_NUMBER":
        return {"kind": "at", "seq": _sequence_number(where, shard)}
    if kind == "TRIM_HORIZON":
        return {"kind": "trim_horizon"}
    if kind == "AT_TIMESTAMP":
        return {"kind": "at_timestamp", "ms": int(where)}
    if kind == "LATEST":
        if batch_start_ms <= 0:
            raise MigrationError(f"shard {shard} is at LATEST, and the offset file has no batchTimestampMs")
        return {"kind": "at_timestamp", "ms": batch_start_ms}
    if kind == "SHARD_END":
        return {"kind": "shard_end"}
    raise MigrationError(f"shard {shard} has a position of an unknown kind: {info}")


def start_position(
    checkpoint: Path,
    source: int = 0,
    metadata_path: Path | None = None,
    dynamodb_items: Path | None = None,
) -> dict[str, Any]:
    """The ``initialPosition`` (as a dict) that starts a query of this connector where the awslabs query of
    ``checkpoint`` stopped."""
    batch = last_committed_batch(checkpoint)
    offset, batch_start_ms = read_offset(checkpoint, batch, source)
    stream = offset["metadata"]["streamName"]
    starts = {shard: info for shard, info in offset.items() if shard != "metadata"}
    if dynamodb_items is not None:
        ends = dynamodb_ends(dynamodb_items, batch)
    else:
        ends = stored_ends(metadata_path or checkpoint / "sources" / str(source), batch)
    # As the awslabs connector does when it plans the next batch: where a task stopped, else where it started.
    merged = {**starts, **ends}
    shards = {shard: position(info, shard, batch_start_ms) for shard, info in sorted(merged.items())}
    return {"v": offset_version(shards.values()), "streams": {stream: {"shards": shards}}}


def offset_version(positions: Iterable[dict[str, Any]]) -> int:
    """The lowest version of this connector's offsets that has every position given, as the connector writes
    its own: 4 with "at", 3 with a sub-sequence number, else 2."""
    given = list(positions)
    return 4 if any(p["kind"] == "at" for p in given) else 3 if any("sub" in p for p in given) else 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Print the initialPosition that starts a query of this connector where a stopped query "
        "of the awslabs connector (aws-kinesis) left off, read from a local copy of its checkpoint."
    )
    parser.add_argument("checkpoint", type=Path, help="a local copy of the old query's checkpointLocation")
    parser.add_argument(
        "--source", type=int, default=0, help="the Kinesis source's index among the query's sources (0)"
    )
    parser.add_argument(
        "--metadata-path", type=Path, help="a local copy of kinesis.metadataPath, if the old query set it"
    )
    parser.add_argument(
        "--dynamodb-items",
        type=Path,
        help="with kinesis.metadataCommitterType DYNAMODB: the output of `aws dynamodb scan` of its table",
    )
    args = parser.parse_args(argv)
    try:
        start = start_position(args.checkpoint, args.source, args.metadata_path, args.dynamodb_items)
    except MigrationError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    print(json.dumps(start, sort_keys=True, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
