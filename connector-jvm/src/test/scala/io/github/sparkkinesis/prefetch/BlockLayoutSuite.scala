// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.ByteBuffer

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.source.KinesisRecordSchema
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class BlockLayoutSuite extends AnyFunSuite {
  private val shard = ShardKey("orders-stream", "shardId-000000000007")
  private val MiB = 1024 * 1024

  private def record(i: Int, size: Int, sub: Option[Long] = None) =
    KinesisRecord(
      s"clé-$i",
      Array.tabulate(size)(j => (i + j).toByte),
      s"4960000000000000000000000000$i",
      1700000000000L + i,
      sub)

  private def cursorOver(buffers: Seq[ByteBuffer]) = new BlockCursor("input-1073741824-5", buffers.iterator)

  private def read(chunks: Seq[Array[Byte]]): Vector[KinesisRecord] =
    cursorOver(chunks.map(ByteBuffer.wrap)).records.toVector

  private def same(a: Seq[KinesisRecord], b: Seq[KinesisRecord]): Unit = {
    assert(a.size == b.size)
    a.zip(b).foreach { case (x, y) =>
      assert(x.partitionKey == y.partitionKey)
      assert(x.data.sameElements(y.data), s"data of ${x.sequenceNumber}")
      assert(x.sequenceNumber == y.sequenceNumber)
      assert(x.approximateArrivalMillis == y.approximateArrivalMillis)
      assert(x.subSequenceNumber == y.subSequenceNumber)
    }
  }

  /** The row Spark's own writer makes of a record: the layout must be byte for byte the same. */
  private def sparkRow(r: KinesisRecord): UnsafeRow = {
    val writer = new UnsafeRowWriter(KinesisRecordSchema.schema.length)
    writer.reset()
    writer.zeroOutNullBytes()
    if (r.partitionKey == null) writer.setNullAt(0) else writer.write(0, UTF8String.fromString(r.partitionKey))
    writer.write(1, r.data)
    writer.write(2, UTF8String.fromString(shard.stream))
    writer.write(3, UTF8String.fromString(shard.shardId))
    writer.write(4, UTF8String.fromString(r.sequenceNumber))
    writer.write(5, r.approximateArrivalMillis * 1000L)
    writer.getRow
  }

  test("every field round-trips, and each row is the UnsafeRow Spark's writer makes of the record") {
    val records = (0 until 50).map(i => record(i, i % 9))
    same(read(BlockLayout.write(shard, records)), records)
    val cursor = cursorOver(BlockLayout.write(shard, records).map(ByteBuffer.wrap))
    records.foreach { r =>
      assert(cursor.next())
      assert(cursor.row == sparkRow(r))
      assert(cursor.row.getUTF8String(2).toString == shard.stream)
      assert(cursor.row.getUTF8String(3).toString == shard.shardId)
      assert(cursor.row.getLong(5) == r.approximateArrivalMillis * 1000L)
      assert(cursor.dataLength == r.data.length && cursor.arrivalMillis == r.approximateArrivalMillis)
      assert(cursor.position == ShardPosition.After(r.sequenceNumber))
    }
    assert(!cursor.next())
  }

  test("records of 0 bytes, 1 MiB and 10 MiB (the largest Kinesis accepts), and non-ASCII keys") {
    val records = Seq(record(1, 0), record(2, MiB), record(3, 10 * MiB), record(4, 0).copy(partitionKey = "日本-ключ-🔑"))
    val chunks = BlockLayout.write(shard, records)
    same(read(chunks), records)
    // The 10 MiB record is a chunk of its own, larger than ChunkBytes.
    assert(chunks.exists(_.length > 10 * MiB))
  }

  test("a record without a partition key (Kinesis distributing the records itself) has a null key in its row") {
    val records = (0 until 6).map(i => if (i % 2 == 0) record(i, 5).copy(partitionKey = null) else record(i, 5))
    val chunks = BlockLayout.write(shard, records)
    same(read(chunks), records)
    val cursor = cursorOver(chunks.map(ByteBuffer.wrap))
    records.foreach { r =>
      assert(cursor.next())
      assert(cursor.row == sparkRow(r), "byte for byte the row Spark's writer makes, null bit and all")
      assert(cursor.row.isNullAt(0) == (r.partitionKey == null))
      assert(cursor.row.getBinary(1).sameElements(r.data))
    }
  }

  test("KPL user records keep their index in the aggregate; a clip inside the aggregate is honoured") {
    val users = (0L to 3L).map(sub => record(5, 3, Some(sub)))
    val records = record(4, 2) +: users :+ record(6, 2)
    val chunks = BlockLayout.write(shard, records)
    same(read(chunks), records)
    val clipped = cursorOver(chunks.map(ByteBuffer.wrap))
      .clip(
        ShardPosition.After(users.head.sequenceNumber, Some(1)),
        Some(ShardPosition.After(records.last.sequenceNumber)))(new IllegalStateException("missing"))
    assert(clipped.records.map(_.subSequenceNumber).toSeq == Seq(Some(2L), Some(3L), None))
  }

  test("a block is cut into chunks of about ChunkBytes, whole records each, and read across them") {
    val records = (0 until 40).map(i => record(i, 300 * 1024))
    val chunks = BlockLayout.write(shard, records)
    assert(chunks.size > 2)
    assert(chunks.forall(c => c.length <= BlockLayout.ChunkBytes + 300 * 1024 + 1024 && c.length % 8 == 0))
    same(read(chunks), records)
    assert(BlockLayout.write(shard, Nil).isEmpty)
  }

  test("buffers cut anywhere (as read from disk or another executor), or off the heap, read the same") {
    val records = (0 until 200).map(i => record(i, 2000 + i))
    val whole = BlockLayout.write(shard, records).flatten.toArray
    Seq(1, 7, 8, 4096, 100003, whole.length).foreach { piece =>
      val buffers = whole.grouped(piece).map(ByteBuffer.wrap).toSeq
      same(cursorOver(buffers).records.toVector, records)
    }
    val direct = ByteBuffer.allocateDirect(whole.length).put(whole)
    direct.flip()
    same(cursorOver(Seq(direct)).records.toVector, records)
    // A buffer Spark hands over with its position past the start of its array.
    val offset = ByteBuffer.wrap(Array.fill[Byte](16)(9) ++ whole)
    offset.position(16)
    same(cursorOver(Seq(offset.slice())).records.toVector, records)
  }

  test("a layout version this connector does not know is refused, naming the block and the version") {
    val chunk = BlockLayout.write(shard, Seq(record(1, 4))).head
    ByteBuffer.wrap(chunk).order(java.nio.ByteOrder.nativeOrder()).putInt(0, 2)
    val e = intercept[IllegalStateException](cursorOver(Seq(ByteBuffer.wrap(chunk))).next())
    assert(e.getMessage.contains("input-1073741824-5") && e.getMessage.contains("layout version 2"))
    val cut = BlockLayout.write(shard, Seq(record(1, 4))).head.take(20)
    val ends = intercept[IllegalStateException](cursorOver(Seq(ByteBuffer.wrap(cut))).next())
    assert(ends.getMessage.contains("ends inside a chunk"))
  }
}
