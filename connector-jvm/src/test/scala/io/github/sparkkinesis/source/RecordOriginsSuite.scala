// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.nio.charset.StandardCharsets.UTF_8

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.reading.RecordCursor
import io.github.sparkkinesis.util.RecordOrigins
import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

class RecordOriginsSuite extends AnyFunSuite {

  /** A reader handing on the rows of `records`, as the source's readers do. */
  private final class Reader(records: Seq[KinesisRecord]) extends RecordOrigins.Reader {
    private val cursor = RecordCursor.of(records.iterator)
    private val rows = new KinesisRecordSchema.RowWriter(ShardKey("orders", "shardId-000000000001"))
    private var current: InternalRow = _
    def next(): Unit = { assert(cursor.next()); current = rows.rowOf(cursor) }
    override def originOf(data: Array[Byte]): Option[String] = KinesisRecordSchema.originOf(current, data)
  }

  private def record(sequence: String, data: String) =
    KinesisRecord("key", data.getBytes(UTF_8), sequence, 1700000000000L)

  test("the reader's last record is named by stream, shard and sequence number, and only when its bytes match") {
    val reader = new Reader(Seq(record("101", "first"), record("102", "second")))
    RecordOrigins.register(reader)
    try {
      assert(RecordOrigins.of("first".getBytes(UTF_8)).isEmpty, "before any record is handed on")
      reader.next()
      assert(
        RecordOrigins
          .of("first".getBytes(UTF_8))
          .contains("stream orders, shard shardId-000000000001, sequence number 101"))
      reader.next()
      assert(RecordOrigins.of("first".getBytes(UTF_8)).isEmpty, "bytes of a record the reader has moved past")
      assert(RecordOrigins.of("second".getBytes(UTF_8)).exists(_.endsWith("sequence number 102")))
    } finally RecordOrigins.unregister(reader)
    assert(RecordOrigins.of("second".getBytes(UTF_8)).isEmpty, "after the reader is unregistered")
  }

  test("a thread sees only its own reader") {
    val reader = new Reader(Seq(record("7", "mine")))
    RecordOrigins.register(reader)
    try {
      reader.next()
      var elsewhere: Option[String] = Some("not asked")
      val other = new Thread(() => elsewhere = RecordOrigins.of("mine".getBytes(UTF_8)))
      other.start()
      other.join()
      assert(elsewhere.isEmpty)
      assert(RecordOrigins.of("mine".getBytes(UTF_8)).isDefined)
    } finally RecordOrigins.unregister(reader)
  }
}
