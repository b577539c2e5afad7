// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import io.github.sparkkinesis.config.InitialPosition
import io.github.sparkkinesis.realtime.KinesisRealTimeStream
import io.github.sparkkinesis.source.{KinesisMicroBatchStream, QueryStreams}
import io.github.sparkkinesis.testing.{StopsFixtureStreams, StreamFixture}
import org.apache.spark.sql.connector.read.streaming.ReadLimit
import org.apache.spark.util.LongAccumulator
import org.scalatest.funsuite.AnyFunSuite

/** Spark's stream on 4.1 and later reads as the mode Spark says, and makes nothing of the other mode. */
class EitherModeStreamSuite extends AnyFunSuite with StopsFixtureStreams {

  /** The stream Spark gets over the fixture, and the streams of each mode it made so far. */
  private final class Made(f: StreamFixture) {
    var microBatches = Seq.empty[KinesisMicroBatchStream]
    var realTime = Seq.empty[KinesisRealTimeStream]
    val stream = new EitherModeStream(
      f.config,
      f.newStreams(),
      (streams: QueryStreams) => {
        val made = new KinesisMicroBatchStream(f.config, streams, f.clock, f.runtime, f.apis)
        microBatches :+= made
        made
      },
      (streams: QueryStreams) => {
        val made = new KinesisRealTimeStream(f.config, streams, f.apis, () => new LongAccumulator, () => 2)
        realTime :+= made
        made
      }
    )
  }

  /**
   * Runs `body` over Spark's stream of a fixture stream "s" of one shard, holding one record when `withRecord`,
   * and stops the stream after.
   */
  private def withStream(withRecord: Boolean)(body: (EitherModeStream, Made, StreamFixture) => Unit): Unit = {
    val f = new StreamFixture(InitialPosition.TrimHorizon)
    val Seq(shard) = f.api.createStream("s", 1)
    if (withRecord) f.api.put("s", shard, "r1")
    val made = new Made(f)
    try body(made.stream, made, f)
    finally made.stream.stop()
  }

  test("in real-time mode no micro-batch stream is made, so no block catalog and no prefetcher") {
    withStream(withRecord = true) { (stream, made, f) =>
      stream.prepareForRealTimeMode()
      assert(stream.getDefaultReadLimit == ReadLimit.allAvailable())
      val start = stream.initialOffset()
      assert(stream.latestOffset(start, stream.getDefaultReadLimit) == start, "nothing read yet")
      assert(stream.planInputPartitions(start).length == 1)
      assert(!stream.metrics(java.util.Optional.of(start)).containsKey("totalPrefetchedBytes"))
      assert(made.microBatches.isEmpty && made.realTime.size == 1)
      assert(f.runtime.jobsRun == 0, "nothing prefetched")
    }
  }

  test("without real-time mode it reads micro-batches, made at the first call that needs them") {
    withStream(withRecord = true) { (stream, made, _) =>
      val start = stream.initialOffset()
      assert(made.microBatches.isEmpty, "the initial offset is every mode's")
      stream.getDefaultReadLimit
      assert(made.microBatches.size == 1)
      val end = stream.latestOffset(start, stream.getDefaultReadLimit)
      stream.planInputPartitions(start, end)
      assert(made.microBatches.size == 1 && made.realTime.isEmpty)
      assert(stream.metrics(java.util.Optional.empty()).containsKey("totalPrefetchedBytes"))
    }
  }

  test("real-time mode said after the stream read micro-batches is refused, not half obeyed") {
    withStream(withRecord = false) { (stream, made, _) =>
      stream.getDefaultReadLimit
      intercept[IllegalStateException](stream.prepareForRealTimeMode())
      assert(made.realTime.isEmpty)
    }
  }
}
