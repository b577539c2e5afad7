// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.nio.ByteBuffer

import scala.util.Random

import io.github.sparkkinesis.client.KinesisRecord
import io.github.sparkkinesis.offsets.{SequenceNumbers, ShardKey, ShardPosition}
import io.github.sparkkinesis.reading.RecordCursor
import org.scalatest.funsuite.AnyFunSuite

class BlockCursorSuite extends AnyFunSuite {

  private def seq(i: Int) = s"4960000000000000000000000000${100 + i}"

  /** Records 1 to 10, the fifth a KPL aggregate of three user records. */
  private val records = (1 to 10).flatMap { i =>
    if (i == 5) (0 to 2).map(sub => KinesisRecord(s"k$i.$sub", Array(i.toByte), seq(i), 1000L + i, Some(sub.toLong)))
    else Seq(KinesisRecord(s"k$i", Array(i.toByte), seq(i), 1000L + i))
  }

  private def cursor =
    new BlockCursor("input-1-2", BlockLayout.write(ShardKey("s", "shardId-1"), records).iterator.map(ByteBuffer.wrap))

  private def keys(c: BlockCursor): Seq[String] = c.records.map(_.partitionKey).toVector

  private class Missing extends RuntimeException

  test("a clip keeps the records after its start up to and including its end, inside aggregates too") {
    def clipped(from: ShardPosition, until: Option[ShardPosition.After]) = keys(cursor.clip(from, until)(new Missing))
    assert(clipped(ShardPosition.TrimHorizon, None) == records.map(_.partitionKey))
    assert(
      clipped(ShardPosition.After(seq(3)), Some(ShardPosition.After(seq(5), Some(1)))) == Seq("k4", "k5.0", "k5.1"))
    assert(
      clipped(ShardPosition.After(seq(5), Some(0)), Some(ShardPosition.After(seq(7)))) == Seq(
        "k5.1",
        "k5.2",
        "k6",
        "k7"))
    // A whole record as the end takes all of the aggregate's user records.
    assert(clipped(ShardPosition.After(seq(4)), Some(ShardPosition.After(seq(5)))) == Seq("k5.0", "k5.1", "k5.2"))
    assert(clipped(ShardPosition.After(seq(8)), None) == Seq("k9", "k10"))
  }

  test("a clip whose end the records do not reach fails, and so does one whose end is not among them") {
    intercept[Missing](keys(cursor.clip(ShardPosition.After(seq(8)), Some(ShardPosition.After(seq(12))))(new Missing)))
    // Sequence number 5 has user records 0 to 2 only: the stretch's end is missing from the block.
    intercept[Missing](
      keys(cursor.clip(ShardPosition.After(seq(4)), Some(ShardPosition.After(seq(5), Some(7))))(new Missing)))
  }

  test("a clip that knows its record count keeps the same records, and fails if the count is not the clip's") {
    val clips = Seq(
      (ShardPosition.TrimHorizon, ShardPosition.After(seq(10))),
      (ShardPosition.After(seq(3)), ShardPosition.After(seq(5), Some(1))),
      (ShardPosition.After(seq(5), Some(0)), ShardPosition.After(seq(7))),
      (ShardPosition.After(seq(4)), ShardPosition.After(seq(5)))
    )
    clips.foreach { case (from, until) =>
      val compared = keys(cursor.clip(from, Some(until))(new Missing))
      assert(keys(cursor.clip(from, Some(until), Some(compared.size.toLong))(new Missing)) == compared)
      intercept[Missing](keys(cursor.clip(from, Some(until), Some(compared.size.toLong - 1))(new Missing)))
      intercept[Missing](keys(cursor.clip(from, Some(until), Some(compared.size.toLong + 1))(new Missing)))
    }
  }

  test("records read from Kinesis are handed on as they are, in order, with their positions") {
    val cursor = RecordCursor.of(records.iterator)
    assert(cursor.next() && cursor.position == ShardPosition.After(seq(1)))
    assert(cursor.records.map(_.partitionKey).toSeq == records.drop(1).map(_.partitionKey))
    assert(!RecordCursor.of(Iterator.empty).next())
  }

  test("sequence numbers compare where they lie in a block as they do as strings") {
    val random = new Random(7)
    def number() = BigInt(random.nextInt(128) + 1, random).toString
    (1 to 2000).foreach { _ =>
      val (a, b) = (number(), number())
      val (aSub, bSub) = (random.nextInt(3) - 1, Option(random.nextInt(3) - 1).filter(_ >= 0).map(_.toLong))
      val bytes = ("xx" + a).getBytes("US-ASCII")
      val inPlace = SequenceNumbers.compare(bytes, 2, a.length, aSub.toLong, b, bSub)
      val asStrings = SequenceNumbers.compare(a, Option(aSub.toLong).filter(_ >= 0), b, bSub)
      assert(math.signum(inPlace) == math.signum(asStrings), s"$a/$aSub against $b/$bSub")
    }
  }
}
