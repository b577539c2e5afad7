// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.StreamSummary
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.testing.{DefaultConfigs, FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

class ShardFetcherSuite extends AnyFunSuite {

  private val config = DefaultConfigs.Reading.copy(maxRecordsPerFetch = 8, maxFetchBytesPerSecond = 1000)

  private class Fixture(records: Int, payload: Int = 10) {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    val shard: String = api.createStream("s", 1).head
    val key: ShardKey = ShardKey("s", shard)
    val seqs: Seq[String] = (1 to records).map(i => api.put("s", shard, "x" * (payload - 1) + (i % 10)))

    def fetcher(
        from: ShardPosition = ShardPosition.TrimHorizon,
        arrivedBefore: Long = Long.MaxValue,
        reading: ReadConfig = config,
        largestRecord: Long = StreamSummary.DefaultMaxRecordBytes) =
      new ShardFetcher(
        api,
        ShardFetchSpec(
          key,
          from,
          FetchCursor(None, 0, reading.maxRecordsPerFetch),
          end =
            if (arrivedBefore == Long.MaxValue) ReadEnd.Open else ReadEnd.ArrivedBefore(arrivedBefore, largestRecord)
        ),
        reading,
        clock
      )
  }

  test("the next call waits minFetchPeriod, or longer when the bytes read exceed maxFetchRate") {
    val f = new Fixture(records = 100, payload = 25)
    val fetcher = f.fetcher()
    val start = f.clock.nowMillis()
    fetcher.fetchOnce()
    // 8 records of 25 bytes at 1000 bytes/s: 200 ms, less than minFetchPeriod (400 ms).
    assert(fetcher.nextCallAt == start + 400)
    val big = new ShardFetcher(
      f.api,
      ShardFetchSpec(f.key, ShardPosition.TrimHorizon, FetchCursor(None, 0, 80)),
      config.copy(maxRecordsPerFetch = 80),
      f.clock)
    big.fetchOnce()
    // 80 records of 25 bytes at 1000 bytes/s: two seconds before the next call.
    assert(big.nextCallAt == start + 2000)
  }

  test("a throttled call halves the records per call and rests 2.5 to 5 seconds; successes climb back") {
    val f = new Fixture(records = 100)
    val fetcher = f.fetcher()
    f.api.throttleNextGetRecords = 2
    fetcher.fetchOnce()
    val rest = fetcher.nextCallAt - f.clock.nowMillis()
    assert(rest >= PolledReads.ThrottlePauseMs / 2 && rest <= PolledReads.ThrottlePauseMs, rest)
    f.clock.advance(PolledReads.ThrottlePauseMs)
    fetcher.fetchOnce()
    assert(fetcher.cursor.recordsPerCall == 2)
    assert(fetcher.throttled == 2)
    assert(fetcher.records.isEmpty)
    fetcher.fetchOnce()
    assert(fetcher.records.size == 2, "the halved size is asked for")
    fetcher.fetchOnce()
    fetcher.fetchOnce()
    assert(fetcher.records.size == 2 + 4 + 8, "the size doubles back to maxRecordsPerFetch")
    fetcher.fetchOnce()
    assert(fetcher.cursor.recordsPerCall == 8)
    assert(fetcher.records.map(_.sequenceNumber) == f.seqs.take(22))
  }

  test("an expired iterator is renewed after the last record read, without gaps or repeats") {
    val f = new Fixture(records = 20)
    val fetcher = f.fetcher()
    fetcher.fetchOnce()
    f.api.expireIterators()
    fetcher.fetchOnce()
    assert(fetcher.records.size == 8, "the call with the expired iterator read nothing")
    fetcher.fetchOnce()
    fetcher.fetchOnce()
    assert(fetcher.records.map(_.sequenceNumber) == f.seqs)
  }

  test("the open iterator, pacing and size are handed on, and a later task continues without a new iterator") {
    val f = new Fixture(records = 20)
    val first = f.fetcher()
    first.fetchOnce()
    assert(first.position == ShardPosition.After(f.seqs(7)))
    val next = new ShardFetcher(f.api, ShardFetchSpec(f.key, first.position, first.cursor), config, f.clock)
    val iterators = f.api.calls("GetShardIterator")
    next.fetchOnce()
    assert(f.api.calls("GetShardIterator") == iterators)
    assert(next.records.map(_.sequenceNumber) == f.seqs.slice(8, 16))
    assert(next.nextCallAt == first.cursor.notBeforeMs.max(f.clock.nowMillis() + 400))
  }

  test("a closed shard read to its end is finished") {
    val f = new Fixture(records = 5)
    f.api.split("s", f.shard)
    val fetcher = f.fetcher()
    fetcher.fetchOnce()
    assert(fetcher.finished)
    assert(fetcher.shardEnded)
    assert(fetcher.recordCount == 5)
  }

  test("under AvailableNow only records that arrived before the cut-off are kept") {
    val f = new Fixture(records = 3)
    val cutoff = f.clock.nowMillis() + 1
    f.clock.advance(5)
    (1 to 3).foreach(i => f.api.put("s", f.shard, s"late$i"))
    val fetcher = f.fetcher(arrivedBefore = cutoff)
    fetcher.fetchOnce()
    assert(fetcher.finished)
    assert(fetcher.records.map(_.sequenceNumber) == f.seqs)
    assert(fetcher.readEndReached)
  }

  test(
    "under AvailableNow an answer after the cut-off that reaches the shard's tip finishes it, without another call") {
    val f = new Fixture(records = 3)
    val fetcher = f.fetcher(arrivedBefore = f.clock.nowMillis() + 1)
    f.clock.advance(5)
    fetcher.fetchOnce()
    assert(fetcher.finished, "3 of 8 asked, no lag, after the cut-off: nothing older is left")
    assert(fetcher.readEndReached)
    assert(fetcher.records.map(_.sequenceNumber) == f.seqs)
    assert(f.api.calls("GetRecords") == 1)
  }

  test("under AvailableNow an answer before the cut-off does not finish the shard; one after it, empty, does") {
    val f = new Fixture(records = 3)
    val fetcher = f.fetcher(arrivedBefore = f.clock.nowMillis() + 1000)
    fetcher.fetchOnce()
    assert(!fetcher.finished, "the answer shows the shard before the cut-off: older records may still come")
    f.clock.advance(1000)
    fetcher.fetchOnce()
    assert(fetcher.finished)
    assert(fetcher.records.size == 3)
  }

  test("under AvailableNow a full answer at no lag does not finish the shard, however late") {
    val f = new Fixture(records = 20)
    f.api.reportNoLag = true // records that arrived in the same millisecond: Kinesis' lag is 0
    val fetcher = f.fetcher(arrivedBefore = f.clock.nowMillis() + 1)
    f.clock.advance(5)
    fetcher.fetchOnce()
    assert(!fetcher.finished, "8 of 8 asked: more may follow")
    fetcher.fetchOnce()
    assert(!fetcher.finished, "8 of 8 asked: more may follow")
    fetcher.fetchOnce()
    assert(fetcher.finished)
    assert(fetcher.records.map(_.sequenceNumber) == f.seqs)
  }

  test("under AvailableNow an answer Kinesis may have cut for its size does not finish the shard") {
    val f = new Fixture(records = 10, payload = 1024 * 1024)
    val fetcher = f.fetcher(arrivedBefore = f.clock.nowMillis() + 1, reading = config.copy(maxRecordsPerFetch = 100))
    f.clock.advance(5)
    fetcher.fetchOnce()
    assert(!fetcher.finished, "10 MiB, near the size at which Kinesis cuts an answer: more may follow")
    assert(fetcher.recordCount == 10)
    f.clock.advance(60000)
    fetcher.fetchOnce()
    assert(fetcher.finished, "an empty answer at the tip after the cut-off")
    assert(fetcher.recordCount == 10)
  }

  test("under AvailableNow, in a stream of records up to 10 MiB, only an empty answer at the tip finishes the shard") {
    val f = new Fixture(records = 3)
    val fetcher =
      f.fetcher(arrivedBefore = f.clock.nowMillis() + 1, largestRecord = StreamSummary.LargestMaxRecordBytes)
    f.clock.advance(5)
    fetcher.fetchOnce()
    assert(!fetcher.finished, "3 of 8 asked, but a 10 MiB record after them would not have fitted in the answer")
    f.clock.advance(60000)
    fetcher.fetchOnce()
    assert(fetcher.finished, "an empty answer at the tip after the cut-off")
    assert(fetcher.records.map(_.sequenceNumber) == f.seqs)
    assert(f.api.calls("GetRecords") == 2)
  }

  test("under AvailableNow an answer at the tip finishes the shard when the stream's largest record fits beside it") {
    val MiB = 1024 * 1024
    def callsToFinish(records: Int): Long = {
      val f = new Fixture(records, payload = MiB)
      val fetcher =
        f.fetcher(
          arrivedBefore = f.clock.nowMillis() + 1,
          reading = config.copy(maxRecordsPerFetch = 100),
          largestRecord = 2L * MiB)
      f.clock.advance(5)
      while (!fetcher.finished) { fetcher.fetchOnce(); f.clock.advance(60000) }
      assert(fetcher.recordCount == records)
      f.api.calls("GetRecords")
    }
    assert(callsToFinish(7) == 1, "7 MiB and keys: a 2 MiB record would have fitted, so none was left out")
    assert(callsToFinish(8) == 2, "8 MiB and keys: a 2 MiB record would not have fitted; an empty answer confirms")
  }

  test("a full answer is never taken for the tip, even when Kinesis reports no lag") {
    val f = new Fixture(records = 20)
    f.api.reportNoLag = true // records that arrived in the same millisecond: Kinesis' lag is 0
    val fetcher = f.fetcher()
    fetcher.fetchOnce()
    assert(!fetcher.caughtUp, "8 of 8 asked: more may follow")
    fetcher.fetchOnce()
    fetcher.fetchOnce()
    assert(fetcher.caughtUp, "4 of 8 asked, no lag: the tip")
    assert(fetcher.records.map(_.sequenceNumber) == f.seqs)
  }
}
