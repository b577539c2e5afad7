// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import io.github.sparkkinesis.client.KinesisRecord
import org.scalatest.funsuite.AnyFunSuite

class RecordBlockCodecSuite extends AnyFunSuite {

  private def record(i: Int, size: Int) =
    KinesisRecord(s"clé-$i", Array.fill(size)((i % 127).toByte), s"4960000000000000000000000000$i", 1700000000000L + i)

  private def same(a: Seq[KinesisRecord], b: Seq[KinesisRecord]): Boolean =
    a.size == b.size && a.zip(b).forall { case (x, y) =>
      x.partitionKey == y.partitionKey && x.data.sameElements(y.data) && x.sequenceNumber == y.sequenceNumber &&
      x.approximateArrivalMillis == y.approximateArrivalMillis
    }

  test("records survive encoding, empty payloads and non-ASCII keys included") {
    val records = (0 until 100).map(i => record(i, i % 5))
    assert(same(RecordBlockCodec.decode(RecordBlockCodec.encode(records).iterator).records.toSeq, records))
  }

  test("large blocks are split into chunks of about ChunkBytes") {
    val records = (0 until 10).map(i => record(i, 1024 * 1024))
    val chunks = RecordBlockCodec.encode(records)
    assert(chunks.size == 3)
    assert(chunks.forall(_.length <= RecordBlockCodec.ChunkBytes + 1024 * 1024 + 100))
    assert(same(RecordBlockCodec.decode(chunks.iterator).records.toSeq, records))
  }

  test("no records, no chunks") {
    assert(RecordBlockCodec.encode(Nil).isEmpty)
  }
}
