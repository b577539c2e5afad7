# SPDX-License-Identifier: Apache-2.0
"""docs/guides/awslabs_start_position.py, the guide's way to move a query from the awslabs connector: on
checkpoints laid out as that connector and Spark write them, it starts every shard where the old query's
last committed batch stopped; and the JVM takes what it prints as initialPosition."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pyspark_kinesis import KinesisOptionError

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "guides" / "awslabs_start_position.py"

SEQ_A = "49650000000000000000000000000000000000000000000000000001"
SEQ_B = "49650000000000000000000000000000000000000000000000000099"
SEQ_C = "49650000000000000000000000000000000000000000000000000200"
SEQ_D = "49650000000000000000000000000000000000000000000000000300"
BATCH_START_MS = 1_764_115_200_000


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("awslabs_start_position", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


migration = load_script()


def awslabs_offset(batch: int, shards: dict[str, dict[str, str]]) -> str:
    """An offset as the awslabs connector writes it: every value a string, a "metadata" entry."""
    return json.dumps({"metadata": {"batchId": str(batch), "streamName": "orders"}, **shards})


def shard_info(shard: str, kind: str, where: str = "", sub: int = -1, last: bool = True) -> dict[str, Any]:
    """A task's stored position as the awslabs connector serializes its ShardInfo."""
    return {"shardId": shard, "iteratorType": kind, "iteratorPosition": where, "subSequenceNumber": sub,
            "isLast": last}  # fmt: skip


def write_checkpoint(root: Path) -> Path:
    """A checkpoint of an awslabs query stopped after batch 7, with batch 8 planned and not committed."""
    checkpoint = root / "old-checkpoint"
    (checkpoint / "commits").mkdir(parents=True)
    (checkpoint / "offsets").mkdir()
    for batch in (6, 7):
        (checkpoint / "commits" / str(batch)).write_text('v1\n{"nextBatchWatermarkMs":0}\n')
    (checkpoint / "commits" / ".7.crc").write_bytes(b"\x00")
    starts = {
        # where batch 7 started: its offset in Spark's log
        "shardId-000000000000": {"iteratorType": "AFTER_SEQUENCE_NUMBER", "iteratorPosition": SEQ_A,
                                 "subSequenceNumber": "-1", "isLast": "true"},
        "shardId-000000000001": {"iteratorType": "AFTER_SEQUENCE_NUMBER", "iteratorPosition": SEQ_A,
                                 "subSequenceNumber": "-1", "isLast": "true"},
        "shardId-000000000002": {"iteratorType": "AT_TIMESTAMP", "iteratorPosition": "1764111600000",
                                 "subSequenceNumber": "-1", "isLast": "true"},
        "shardId-000000000003": {"iteratorType": "TRIM_HORIZON", "iteratorPosition": "",
                                 "subSequenceNumber": "-1", "isLast": "true"},
        "shardId-000000000004": {"iteratorType": "AFTER_SEQUENCE_NUMBER", "iteratorPosition": SEQ_D,
                                 "subSequenceNumber": "-1", "isLast": "true"},
    }  # fmt: skip
    metadata = json.dumps({"batchWatermarkMs": 0, "batchTimestampMs": BATCH_START_MS, "conf": {}})
    (checkpoint / "offsets" / "7").write_text(f"v1\n{metadata}\n{awslabs_offset(7, starts)}\n")
    # Batch 8 was planned from batch 7's ends, then the query stopped: its offset must not be taken.
    (checkpoint / "offsets" / "8").write_text(f"v1\n{metadata}\n{awslabs_offset(8, {})}\n")
    ends = checkpoint / "sources" / "0" / "shard-source" / "7"
    ends.mkdir(parents=True)
    stored = {
        # a plain record, a KPL aggregate read to its fourth user record, a shard read to its end, a shard
        # that had nothing after its timestamp (stored as LATEST), and a child shard not read yet
        "shardId-000000000000": shard_info("shardId-000000000000", "AFTER_SEQUENCE_NUMBER", SEQ_B),
        "shardId-000000000001": shard_info("shardId-000000000001", "AFTER_SEQUENCE_NUMBER", SEQ_C, 3, False),
        "shardId-000000000003": shard_info("shardId-000000000003", "SHARD_END"),
        "shardId-000000000002": shard_info("shardId-000000000002", "LATEST"),
        "shardId-000000000005": shard_info("shardId-000000000005", "TRIM_HORIZON"),
    }
    for shard, info in stored.items():
        (ends / shard).write_text(json.dumps(info))
        (ends / f".{shard}.crc").write_bytes(b"\x00")
    return checkpoint


EXPECTED = {
    "v": 3,
    "streams": {
        "orders": {
            "shards": {
                "shardId-000000000000": {"kind": "after", "seq": SEQ_B},
                "shardId-000000000001": {"kind": "after", "seq": SEQ_C, "sub": 3},
                "shardId-000000000002": {"kind": "at_timestamp", "ms": BATCH_START_MS},
                "shardId-000000000003": {"kind": "shard_end"},
                # no task stored a position for it in batch 7: where batch 7 started it
                "shardId-000000000004": {"kind": "after", "seq": SEQ_D},
                "shardId-000000000005": {"kind": "trim_horizon"},
            }
        }
    },
}


def test_each_shard_starts_where_the_last_committed_batch_stopped(tmp_path: Path) -> None:
    assert migration.start_position(write_checkpoint(tmp_path)) == EXPECTED


def test_it_prints_compact_sorted_json_for_initial_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert migration.main([str(write_checkpoint(tmp_path))]) == 0
    printed = capsys.readouterr().out.strip()
    assert json.loads(printed) == EXPECTED
    assert printed == json.dumps(EXPECTED, sort_keys=True, separators=(",", ":"))


def test_the_version_is_the_lowest_that_has_every_position() -> None:
    after = {"kind": "after", "seq": SEQ_A}
    assert migration.offset_version([after, {"kind": "shard_end"}]) == 2
    assert migration.offset_version([after, {**after, "sub": 0}]) == 3
    assert migration.offset_version([{**after, "sub": 0}, {"kind": "at", "seq": SEQ_A}]) == 4


def test_positions_moved_by_kinesis_metadata_path(tmp_path: Path) -> None:
    checkpoint = write_checkpoint(tmp_path)
    moved = tmp_path / "metadata"
    (checkpoint / "sources" / "0").rename(moved)
    assert migration.start_position(checkpoint, metadata_path=moved) == EXPECTED
    with pytest.raises(migration.MigrationError, match=r"kinesis\.metadataPath"):
        migration.start_position(checkpoint)


def test_positions_stored_in_dynamodb(tmp_path: Path) -> None:
    checkpoint = write_checkpoint(tmp_path)
    ends = checkpoint / "sources" / "0" / "shard-source" / "7"
    items = [
        {"metadataKey": {"S": "7"}, "metadataSortKey": {"S": p.name}, "metadataValue": {"S": p.read_text()}}
        for p in ends.iterdir()
        if not p.name.startswith(".")
    ]
    # an older batch's item, which must not be taken
    items.append(
        {
            "metadataKey": {"S": "6"},
            "metadataSortKey": {"S": "shardId-000000000000"},
            "metadataValue": {
                "S": json.dumps(shard_info("shardId-000000000000", "AFTER_SEQUENCE_NUMBER", SEQ_A))
            },
        }
    )
    scan = tmp_path / "scan.json"
    scan.write_text(json.dumps({"Items": items, "Count": len(items)}))
    assert migration.start_position(checkpoint, dynamodb_items=scan) == EXPECTED


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda c: [p.unlink() for p in (c / "commits").iterdir()], "no committed batch"),
        (lambda c: (c / "offsets" / "7").unlink(), "offsets/7 is missing"),
        (
            lambda c: (c / "offsets" / "7").write_text('v1\n{}\n{"v":2,"streams":{}}\n'),
            "not an offset of the awslabs",
        ),
        (
            lambda c: (c / "sources" / "0" / "shard-source" / "7" / "shardId-000000000000").write_text(
                json.dumps(shard_info("shardId-000000000000", "AFTER_SEQUENCE_NUMBER", "4965x"))
            ),
            "not a number",
        ),
    ],
)
def test_what_it_cannot_translate_it_says_and_prints_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: Any, message: str
) -> None:
    checkpoint = write_checkpoint(tmp_path)
    damage(checkpoint)
    assert migration.main([str(checkpoint)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err


def test_the_jvm_takes_the_printed_position_and_the_provider_class_name(spark: Any, tmp_path: Path) -> None:
    # The JVM checks initialPosition at .load(), before anything is read: the printed offset is one it reads.
    printed = json.dumps(migration.start_position(write_checkpoint(tmp_path)))
    for source in ("kinesis", "io.github.sparkkinesis.KinesisTableProvider"):
        frame = (
            spark.readStream.format(source)
            .option("streamName", "orders")
            .option("region", "eu-west-1")
            .option("initialPosition", printed)
            .load()
        )
        assert frame.columns == ["partitionKey", "data", "stream", "shardId", "sequenceNumber",
                                 "approximateArrivalTimestamp"]  # fmt: skip
    # ...and it did read it: a kind it does not know fails there.
    unknown_kind = printed.replace('"shard_end"', '"finished"')
    reader = spark.readStream.format("kinesis").option("streamName", "orders").option("region", "eu-west-1")
    with pytest.raises(KinesisOptionError, match="initialPosition"):
        reader.option("initialPosition", unknown_kind).load()
