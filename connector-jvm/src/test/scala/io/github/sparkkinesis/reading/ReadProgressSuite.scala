// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.IteratorStart
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import org.scalatest.funsuite.AnyFunSuite

class ReadProgressSuite extends AnyFunSuite {
  private val key = ShardKey("s", "shardId-000000000000")

  test("a shard is opened after a whole record read, and at an aggregate read only in part") {
    assert(new ReadProgress(key, ShardPosition.After("10")).resumeAt == IteratorStart.AfterSequenceNumber("10"))
    assert(new ReadProgress(key, ShardPosition.After("10", Some(2L))).resumeAt == IteratorStart.AtSequenceNumber("10"))
    assert(new ReadProgress(key, ShardPosition.TrimHorizon).resumeAt == IteratorStart.TrimHorizon)
    assert(new ReadProgress(key, ShardPosition.AtTimestamp(5L)).resumeAt == IteratorStart.AtTimestamp(5L))
    assert(ReadProgress.startOf(ShardPosition.ShardEnd).isEmpty)
  }

  test("a shard started at a named record is opened at it until a record is read, then after the last one") {
    val progress = new ReadProgress(key, ShardPosition.At("10"))
    assert(progress.resumeAt == IteratorStart.AtSequenceNumber("10"))
    assert(progress.lastSequenceNumber.isEmpty, "the record at 10 is not read yet")
  }
}
