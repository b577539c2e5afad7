// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.ByteBuffer

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.testing.SeededProperties
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * Whatever Kinesis hands the connector, a block holds it as it came: any records (no key or keys at the
 * 256-character limit in multi-byte UTF-8, empty data to records over a chunk, sequence numbers of any
 * length, user records of aggregates), of any stream and shard name, read back field for field, in order,
 * in chunks that each hold at least one record.
 */
class BlockLayoutPropertySuite extends AnyFunSuite with SeededProperties {

  override protected def cases: Int = 100

  private val keys: Gen[String] = Gen.frequency(
    1 -> Gen.const(null),
    1 -> Gen.oneOf("", "é" * 256, "\uD83D\uDD11" * 128, "ключ", "k" * 256, "\u0000"),
    // Any Unicode text (Kinesis keeps keys as UTF-8, so never a lone surrogate), up to 256 UTF-16 units.
    4 -> Gen.listOf(Gen.choose(0, 0x10ffff).filter(c => c < 0xd800 || c > 0xdfff)).map { cs =>
      val kept = cs.take(128)
      new String(kept.toArray, 0, kept.size)
    }
  )

  private val sizes: Gen[Int] =
    Gen.frequency(6 -> Gen.choose(0, 100), 3 -> Gen.choose(101, 70000), 1 -> Gen.choose(4 * 1024 * 1024 - 64, 5000000))

  /** Records, shown in a failure by their shape, not their megabytes of data (not a case class, which would be). */
  private final class Records(val all: Seq[KinesisRecord]) {
    override def toString: String =
      all
        .map(r =>
          s"(key ${Option(r.partitionKey).map(_.length)}, ${r.data.length} B, seq ${r.sequenceNumber.length} digits, sub ${r.subSequenceNumber})")
        .mkString("Records(", ", ", ")")
  }

  private val records: Gen[Records] = for {
    n <- Gen.choose(0, 40)
    records <- Gen.listOfN(
      n,
      for {
        key <- keys
        size <- sizes
        digits <- Gen.choose(1, 130)
        arrival <- Gen.choose(0L, 4102444800000L)
        // A user record's index in its aggregate, which a record of 10 MiB bounds far below 2^31.
        sub <- Gen.frequency(3 -> Gen.const(None), 1 -> Gen.choose(0L, Int.MaxValue.toLong).map(Some(_)))
      } yield KinesisRecord(key, Array.tabulate(size)(i => (i * 7 + size).toByte), "9" * digits, arrival, sub)
    )
  } yield new Records(records)

  private val names: Gen[ShardKey] = for {
    stream <- Gen.oneOf("s", "orders-stream", "x" * 128, "a.b_c-d")
    shard <- Gen.oneOf("shardId-000000000000", "shardId-999999999999", "shard")
  } yield ShardKey(stream, shard)

  test("any records are read back from their block as they came, field for field, in order") {
    forAll(names, records) { (shard, generated) =>
      val written = generated.all
      val chunks = BlockLayout.write(shard, written)
      val cursor = new BlockCursor("input-0-0", chunks.iterator.map(ByteBuffer.wrap))
      val read = cursor.records.toVector
      assert(read.size == written.size)
      read.zip(written).foreach { case (r, w) =>
        assert(r.partitionKey == w.partitionKey)
        assert(java.util.Arrays.equals(r.data, w.data))
        assert(r.sequenceNumber == w.sequenceNumber && r.approximateArrivalMillis == w.approximateArrivalMillis)
        assert(r.subSequenceNumber == w.subSequenceNumber)
      }
      assert(chunks.size <= math.max(1, written.size), "a chunk holds at least one record")
      val again = new BlockCursor("input-0-0", chunks.iterator.map(ByteBuffer.wrap))
      written.foreach { w =>
        assert(again.next())
        assert(again.position == ShardPosition.After(w.sequenceNumber, w.subSequenceNumber))
        assert(again.dataLength == w.data.length)
      }
      assert(!again.next())
    }
  }
}
