# SPDX-License-Identifier: Apache-2.0
"""End-to-end: records framed by the AWS Glue Schema Registry, written by AWS' own Python serializer
(``aws-glue-schema-registry``, the outside oracle of the framing) against moto's registry on loopback, put
into a Kinesis stream, and decoded by ``from_glue_registry`` in a batch read, a streaming query and SQL, in a
fresh PySpark session with the built connector jar; written back by ``to_glue_registry`` and the sink, and
read again by AWS' deserializer and by the connector. Protobuf records ``to_glue_registry`` writes are read by
the classes protoc (grpcio-tools) generates of the registered ``.proto`` file, the struct's own included.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import Kinesis
from glue_registry_server import GlueRegistryServer
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark_kinesis import KinesisOptionError
from pyspark_kinesis.functions import from_glue_registry, glue_registry_header, to_glue_registry
from test_end_to_end import BatchCollector, poll, put, read

V1 = {
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}],
}
V2 = {**V1, "fields": [*V1["fields"], {"name": "price", "type": "double", "default": 0.0}]}


class Orders:
    """Schema `orders` of registry `registry` (a test's own, GlueRegistryServer.registry), with versions 1
    and 2 registered by AWS' serializer, and records of each framed by it."""

    def __init__(self, glue_registry: GlueRegistryServer, registry: str) -> None:
        from aws_schema_registry import KafkaSerializer, SchemaRegistryClient
        from aws_schema_registry.avro import AvroSchema

        self.registry = registry
        glue = glue_registry.client()
        self.client = SchemaRegistryClient(glue, registry_name=self.registry)
        self.serializer = KafkaSerializer(
            self.client, schema_naming_strategy=lambda topic, is_key, schema: "orders"
        )
        self.v1, self.v2 = AvroSchema(V1), AvroSchema(V2)

    def record(self, schema: Any, value: dict[str, Any], compressed: bool = False) -> bytes:
        from aws_schema_registry import DataAndSchema
        from aws_schema_registry.codec import encode

        framed: bytes = self.serializer.serialize("orders", DataAndSchema(value, schema))
        if not compressed:
            return framed
        version = self.client.get_schema_by_definition(str(schema), "orders")
        return encode(schema.write(value), version.version_id, compression=True)

    def written(self) -> list[bytes]:
        return [
            self.record(self.v1, {"id": 1, "item": "apple"}),
            self.record(self.v2, {"id": 2, "item": "pear", "price": 2.5}),
            self.record(self.v2, {"id": 3, "item": "fig", "price": 4.0}, compressed=True),
        ]


@pytest.fixture
def orders(glue_registry: GlueRegistryServer) -> Iterator[Orders]:
    with glue_registry.registry() as registry:
        yield Orders(glue_registry, registry)


@pytest.fixture
def registry(glue_registry: GlueRegistryServer) -> Iterator[str]:
    """A registry of the test's own, deleted when it ends."""
    with glue_registry.registry() as name:
        yield name


def decoded(df: DataFrame, orders: Orders, glue_registry: GlueRegistryServer, **options: str) -> DataFrame:
    column = from_glue_registry("data", "orders", orders.registry, glue_registry.options(**options))
    return df.select(column.alias("order")).select("order.*")


@pytest.mark.line_smoke
def test_records_of_two_versions_read_from_kinesis_decode_to_the_latest(
    spark: SparkSession, kinesis: Kinesis, stream: str, orders: Orders, glue_registry: GlueRegistryServer
) -> None:
    put(kinesis.client(), stream, [(f"key-{i}", data) for i, data in enumerate(orders.written())])
    batch = spark.read.format("kinesis").options(**kinesis.options(stream)).load()
    rows = decoded(batch, orders, glue_registry).collect()
    assert sorted(tuple(r) for r in rows) == [(1, "apple", 0.0), (2, "pear", 2.5), (3, "fig", 4.0)]


def test_a_streaming_query_decodes_as_records_arrive(
    spark: SparkSession,
    kinesis: Kinesis,
    stream: str,
    orders: Orders,
    glue_registry: GlueRegistryServer,
    tmp_path: Path,
) -> None:
    written = orders.written()  # registers the versions: the query is analysed with version 1
    records = read(spark, kinesis.options(stream, initialPosition="trim_horizon"))
    collector = BatchCollector()
    query = collector.start(decoded(records, orders, glue_registry, schemaVersion="1"), tmp_path / "cp")
    try:
        put(kinesis.client(), stream, [(f"key-{i}", data) for i, data in enumerate(written)])
        rows = poll("three orders", collector.rows, lambda rows: len(rows) >= 3, query)
    finally:
        query.stop()
    assert sorted(tuple(r) for r in rows) == [(1, "apple"), (2, "pear"), (3, "fig")]


@pytest.mark.line_smoke
def test_a_record_that_is_not_framed_fails_the_query_naming_its_stream_shard_and_sequence_number(
    spark: SparkSession,
    kinesis: Kinesis,
    stream: str,
    orders: Orders,
    glue_registry: GlueRegistryServer,
    tmp_path: Path,
) -> None:
    answers = put(kinesis.client(), stream, [("key-1", orders.written()[0]), ("key-2", b"not framed")])
    bad = answers[1]
    where = f"stream {stream}, shard {bad['ShardId']}, sequence number {bad['SequenceNumber']}"

    batch = spark.read.format("kinesis").options(**kinesis.options(stream)).load()
    with pytest.raises(Exception) as failed:
        decoded(batch, orders, glue_registry).collect()
    condition = "KINESIS_GLUE_RECORD_UNDECODABLE.NOT_FRAMED"
    assert f"{condition}] from_glue_registry cannot decode the record of {where}" in str(failed.value)

    records = read(spark, kinesis.options(stream, initialPosition="trim_horizon"))
    writer = decoded(records, orders, glue_registry).writeStream.format("noop")
    query = writer.option("checkpointLocation", str(tmp_path / "cp")).start()
    try:
        with pytest.raises(Exception) as stopped:
            query.awaitTermination(120)
    finally:
        query.stop()
    assert f"cannot decode the record of {where} (10 bytes)" in str(stopped.value)


@pytest.mark.line_smoke
def test_decoded_rows_written_back_by_the_sink_read_the_same_by_aws_deserializer_and_the_connector(
    spark: SparkSession,
    kinesis: Kinesis,
    make_stream: Callable[[int], str],
    orders: Orders,
    glue_registry: GlueRegistryServer,
) -> None:
    from aws_schema_registry import KafkaDeserializer

    source, copy = make_stream(1), make_stream(2)
    put(kinesis.client(), source, [(f"key-{i}", data) for i, data in enumerate(orders.written())])
    batch = spark.read.format("kinesis").options(**kinesis.options(source)).load()
    rows = decoded(batch, orders, glue_registry)
    encoded = to_glue_registry(
        F.struct("id", "item", "price"), "orders", orders.registry, glue_registry.options(compression="zlib")
    )
    (
        rows.select(F.col("id").cast("string").alias("partitionKey"), encoded.alias("data"))
        .write.format("kinesis")
        .options(**kinesis.options(copy))
        .mode("append")
        .save()
    )

    written = spark.read.format("kinesis").options(**kinesis.options(copy)).load()
    framed = [bytes(r.data) for r in written.select("data").collect()]
    deserializer = KafkaDeserializer(orders.client)
    by_aws = sorted(tuple(deserializer.deserialize("orders", data).data.values()) for data in framed)
    by_connector = sorted(tuple(r) for r in decoded(written, orders, glue_registry).collect())
    expected = [(1, "apple", 0.0), (2, "pear", 2.5), (3, "fig", 4.0)]
    assert by_aws == by_connector == expected
    assert all(data[:2] == b"\x03\x05" for data in framed), "framed, payload compressed"


def test_a_struct_that_fits_no_version_is_refused_naming_the_column(
    spark: SparkSession, orders: Orders, glue_registry: GlueRegistryServer
) -> None:
    orders.written()
    frame = spark.createDataFrame([(1, "apple", 0.1)], "id BIGINT, item STRING, discount DOUBLE")
    column = to_glue_registry(F.struct("id", "discount"), "orders", orders.registry, glue_registry.options())
    with pytest.raises(KinesisOptionError) as mismatch:
        frame.select(column)
    assert mismatch.value.getCondition() == "KINESIS_GLUE_STRUCT_MISMATCH"
    assert "discount" in str(mismatch.value) and "registerSchema" in str(mismatch.value)
    with pytest.raises(KinesisOptionError) as not_struct:
        frame.select(to_glue_registry("id", "orders", orders.registry, glue_registry.options()))
    assert not_struct.value.getCondition() == "KINESIS_FUNCTION_ARGUMENTS"


PROTO_V1 = 'syntax = "proto3";\npackage shop;\n\nmessage Order {\n  int64 id = 1;\n  string item = 2;\n}\n'
PROTO_V2 = PROTO_V1.replace("string item = 2;", "string item = 2;\n  double price = 3;")


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _proto_order(order: dict[str, Any]) -> bytes:
    """An ``Order`` message in Protobuf's wire format, written by hand (fields 1 to 3, the zero values left
    out as proto3 does), behind the registry's message index of the file's one message, 0."""
    item = order["item"].encode()
    message = b"\x08" + _varint(order["id"]) + b"\x12" + _varint(len(item)) + item
    if order.get("price"):
        message += b"\x19" + struct.pack("<d", order["price"])
    return _varint(0) + message


def test_protobuf_records_framed_by_aws_serializer_decode_to_the_latest_version(
    spark: SparkSession, kinesis: Kinesis, stream: str, glue_registry: GlueRegistryServer, registry: str
) -> None:
    # AWS' Python serializer has no Protobuf schema class; one that gives the .proto text and the wire bytes
    # is all it needs: it registers the versions (data format PROTOBUF) and frames the records itself.
    from aws_schema_registry import DataAndSchema, KafkaSerializer, SchemaRegistryClient
    from aws_schema_registry.schema import Schema

    class ProtoSchema(Schema):
        def __init__(self, text: str) -> None:
            self.text = text

        def __hash__(self) -> int:
            return hash(self.text)

        def __eq__(self, other: object) -> bool:
            return isinstance(other, ProtoSchema) and other.text == self.text

        def __str__(self) -> str:
            return self.text

        @property
        def data_format(self) -> Any:
            return "PROTOBUF"

        @property
        def fqn(self) -> str:
            return "shop.Order"

        def read(self, bytes_: bytes) -> Any:
            raise NotImplementedError

        def write(self, data: Any) -> bytes:
            return _proto_order(data)

    glue = glue_registry.client()
    serializer = KafkaSerializer(
        SchemaRegistryClient(glue, registry_name=registry),
        schema_naming_strategy=lambda topic, is_key, schema: "orders",
    )
    v1, v2 = ProtoSchema(PROTO_V1), ProtoSchema(PROTO_V2)
    framed = [
        serializer.serialize("orders", DataAndSchema({"id": 1, "item": "apple"}, v1)),
        serializer.serialize("orders", DataAndSchema({"id": 2, "item": "pear", "price": 2.5}, v2)),
    ]
    put(kinesis.client(), stream, [(f"key-{i}", data) for i, data in enumerate(framed)])
    batch = spark.read.format("kinesis").options(**kinesis.options(stream)).load()
    column = from_glue_registry("data", "orders", registry, glue_registry.options(dataFormat="PROTOBUF"))
    decoded = batch.select(column.alias("order"))
    assert decoded.schema["order"].dataType.simpleString() == "struct<id:bigint,item:string,price:double>"
    rows = sorted(tuple(r) for r in decoded.select("order.*").collect())
    assert rows == [(1, "apple", None), (2, "pear", 2.5)]


SHOP_PROTO = """syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";

message Order {
  int64 id = 1;
  string item = 2;
  repeated Line lines = 3;
  map<string, int64> stock = 4;
  Status status = 5;
  google.protobuf.Timestamp at = 6;
  optional double price = 7;
  enum Status { NEW = 0; PAID = 1; SHIPPED = 2; }
  message Line { string sku = 1; sint32 qty = 2; }
}
message Refund { int64 order_id = 1; string reason = 2; }
"""


def _protoc_module(definition: str, name: str, directory: Path) -> Any:
    """The Python module protoc (grpcio-tools) generates of a registered .proto definition, imported."""
    import importlib
    import subprocess
    import sys

    (directory / f"{name}.proto").write_text(definition, encoding="utf-8")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{directory}",
            f"--python_out={directory}",
            f"{name}.proto",
        ],
        check=True,
    )
    sys.path.insert(0, str(directory))
    try:
        return importlib.import_module(f"{name}_pb2")
    finally:
        sys.path.remove(str(directory))


def _unframed(record: bytes, version_id: str) -> tuple[int, bytes]:
    """A Protobuf record's message index and message, its header checked: as a consumer without the
    connector reads them (the registry's 18 bytes, then the index, an unsigned varint)."""
    import uuid

    assert record[:2] == b"\x03\x00", "framed, not compressed"
    assert str(uuid.UUID(bytes=record[2:18])) == version_id
    index, shift, position = 0, 0, 18
    while True:
        byte = record[position]
        index |= (byte & 0x7F) << shift
        position += 1
        if byte < 0x80:
            return index, record[position:]
        shift += 7


def test_rows_written_as_protobuf_are_read_by_protoc_generated_classes(
    spark: SparkSession, glue_registry: GlueRegistryServer, registry: str, tmp_path: Path
) -> None:
    glue = glue_registry.client()
    created = glue.create_schema(
        RegistryId={"RegistryName": registry},
        SchemaName="orders",
        DataFormat="PROTOBUF",
        Compatibility="BACKWARD",
        SchemaDefinition=SHOP_PROTO,
    )
    at = datetime(2026, 11, 28, 1, 2, 3, 456789, tzinfo=timezone.utc)
    frame = spark.createDataFrame(
        [(1, "apple", [("a-1", -2)], {"x": 3}, "PAID", at, 2.5), (2, "", [], {}, "NEW", None, 0.0)],
        "id BIGINT, item STRING, lines ARRAY<STRUCT<sku: STRING, qty: INT>>, stock MAP<STRING, BIGINT>, "
        "status STRING, at TIMESTAMP, price DOUBLE",
    )
    columns = F.struct("id", "item", "lines", "stock", "status", "at", "price")
    encoded = frame.select(
        to_glue_registry(columns, "orders", registry, glue_registry.options()).alias("data")
    )
    shop = _protoc_module(SHOP_PROTO, "shop_orders", tmp_path)
    payloads = {}
    for row in encoded.collect():
        index, payload = _unframed(bytes(row.data), created["SchemaVersionId"])
        assert index == 0, (
            "shop.Order: the first of shop.Order, shop.Order.Line, shop.Order.StockEntry, shop.Refund"
        )
        message = shop.Order.FromString(payload)
        assert message.SerializeToString() == payload, "protobuf's own bytes of the message"
        payloads[message.id] = (message, payload)
    first = payloads[1][0]
    lines = [(line.sku, line.qty) for line in first.lines]
    assert (first.item, lines, dict(first.stock), first.price) == ("apple", [("a-1", -2)], {"x": 3}, 2.5)
    assert shop.Order.Status.Name(first.status) == "PAID"
    assert first.at.ToMicroseconds() == int(at.timestamp()) * 1_000_000 + 456789
    # proto3 zeros of fields without presence are not written; an optional field's zero is.
    assert payloads[2][1] == b"\x08\x02" + b"\x39" + struct.pack("<d", 0.0)

    # messageName: the file's second message, read back by from_glue_registry naming it too.
    refund = F.struct(F.col("id").alias("order_id"), F.lit("late").alias("reason"))
    options = glue_registry.options(messageName="Refund")
    refunds = frame.select(to_glue_registry(refund, "orders", registry, options).alias("data"))
    for row in refunds.collect():
        index, payload = _unframed(bytes(row.data), created["SchemaVersionId"])
        assert index == 3 and shop.Refund.FromString(payload).reason == "late"
    back = refunds.select(from_glue_registry("data", "orders", registry, options).alias("r")).select("r.*")
    assert sorted(tuple(r) for r in back.collect()) == [(1, "late"), (2, "late")]


def test_register_schema_creates_a_protobuf_schema_protoc_compiles(
    spark: SparkSession, glue_registry: GlueRegistryServer, registry: str, tmp_path: Path
) -> None:
    glue = glue_registry.client()
    frame = spark.createDataFrame(
        [(1, "apple", [("a-1", 2)], {"x": 3}, 0), (2, None, None, None, 5)],
        "id BIGINT NOT NULL, item STRING, line_items ARRAY<STRUCT<sku: STRING, qty: INT>>, "
        "stock MAP<STRING, BIGINT>, level SMALLINT",
    )
    columns = F.struct("id", "item", "line_items", "stock", "level")
    options = glue_registry.options(registerSchema="true", dataFormat="PROTOBUF")
    framed = [
        bytes(r.data)
        for r in frame.select(to_glue_registry(columns, "refunds", registry, options).alias("data")).collect()
    ]
    version = glue.get_schema_version(
        SchemaId={"RegistryName": registry, "SchemaName": "refunds"},
        SchemaVersionNumber={"LatestVersion": True},
    )
    assert version["DataFormat"] == "PROTOBUF" and version["VersionNumber"] == 1
    # protoc compiles the struct's own .proto; its classes read the records.
    module = _protoc_module(version["SchemaDefinition"], "refunds_struct", tmp_path)
    decoded = {}
    for record in framed:
        index, payload = _unframed(record, version["SchemaVersionId"])
        assert index == 0
        message = module.refunds.FromString(payload)
        assert message.SerializeToString() == payload
        decoded[message.id] = message
    apple, other = decoded[1], decoded[2]
    assert (apple.item, [(i.sku, i.qty) for i in apple.line_items], dict(apple.stock)) == (
        "apple",
        [("a-1", 2)],
        {"x": 3},
    )
    assert apple.HasField("level") and apple.level == 0, "a nullable column is optional: its zero is kept"
    assert not other.HasField("item") and list(other.line_items) == [] and other.level == 5
    back = frame.select(to_glue_registry(columns, "refunds", registry, options).alias("data")).select(
        from_glue_registry("data", "refunds", registry, glue_registry.options()).alias("r")
    )
    assert back.schema["r"].dataType.simpleString() == (
        "struct<id:bigint,item:string,line_items:array<struct<sku:string,qty:int>>,stock:map<string,bigint>,"
        "level:int>"
    )
    rows = sorted((r.id, r.item, r.level) for r in back.select("r.*").collect())
    assert rows == [(1, "apple", 0), (2, None, 5)]


def test_sql_and_the_header_and_permissive_mode(
    spark: SparkSession, orders: Orders, glue_registry: GlueRegistryServer
) -> None:
    framed = [*orders.written(), b"not framed"]
    spark.createDataFrame([(bytearray(d),) for d in framed], "data binary").createOrReplaceTempView("framed")
    options = ", ".join(f"'{k}', '{v}'" for k, v in glue_registry.options(mode="PERMISSIVE").items())
    rows = spark.sql(
        f"SELECT from_glue_registry(data, 'orders', '{orders.registry}', map({options})) AS o FROM framed"
    ).collect()
    assert sorted((r.o.id, r.o.price) for r in rows if r.o is not None) == [(1, 0.0), (2, 2.5), (3, 4.0)]
    assert sum(r.o is None for r in rows) == 1

    headers = spark.table("framed").select(glue_registry_header(F.col("data")).alias("h")).collect()
    versions = {h.h.schemaVersionId for h in headers if h.h is not None}
    registered = [orders.client.get_schema_by_definition(str(s), "orders") for s in (orders.v1, orders.v2)]
    assert versions == {str(version.version_id) for version in registered}
    assert sorted(h.h.compression for h in headers if h.h is not None) == ["none", "none", "zlib"]


def test_bad_arguments_are_refused_when_the_function_is_called(
    spark: SparkSession, orders: Orders, glue_registry: GlueRegistryServer
) -> None:
    with pytest.raises(KinesisOptionError) as unknown:
        from_glue_registry("data", "orders", orders.registry, glue_registry.options(schemaVersoin="1"))
    assert unknown.value.getCondition() == "KINESIS_FUNCTION_OPTION_UNKNOWN"
    assert "schemaVersoin" in str(unknown.value)
    with pytest.raises(KinesisOptionError) as empty:
        from_glue_registry("data", " ", orders.registry)
    assert empty.value.getCondition() == "KINESIS_FUNCTION_ARGUMENTS"
    assert "schema_name must be a name" in str(empty.value)
