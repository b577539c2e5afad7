// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

/**
 * Kinesis' documented per-shard limits of a provisioned stream, kept as token buckets over real time:
 *  - reads: 5 GetRecords calls a second, and 2 MB a second. One call may return up to 10 MiB; after a large
 *    one, further calls are turned down until the shard's read budget has refilled (after a 10 MiB answer,
 *    for the next 4 to 5 seconds, as the GetRecords documentation says);
 *  - GetShardIterator: 5 calls a second;
 *  - writes: 1,000 records and 1 MiB (data and partition keys) a second.
 * Calls over a limit are answered as Kinesis answers them (ProvisionedThroughputExceededException). Thread-safe.
 */
private[bench] final class ShardLimits(nowNanos: () => Long = () => System.nanoTime()) {
  import ShardLimits._

  private val getRecordsCalls = new TokenBucket(capacity = 5, perSecond = 5, nowNanos())
  private val iteratorCalls = new TokenBucket(capacity = 5, perSecond = 5, nowNanos())
  private val readBytes = new TokenBucket(ReadBytesPerSecond, ReadBytesPerSecond, nowNanos())
  private val writeRecords = new TokenBucket(capacity = 1000, perSecond = 1000, nowNanos())
  private val writeBytes = new TokenBucket(WriteBytesPerSecond, WriteBytesPerSecond, nowNanos())

  /** Whether a GetRecords call may be served now; if so, it counts. */
  def admitGetRecords(): Boolean = synchronized {
    val now = nowNanos()
    // The byte budget may be overdrawn by one large answer; no call is served until it is positive again.
    if (readBytes.level(now) <= 0 || getRecordsCalls.level(now) < 1) false
    else { getRecordsCalls.take(1, now); true }
  }

  /** What a served GetRecords call returned, charged to the read budget (which may go below zero). */
  def chargeRead(bytes: Long): Unit = synchronized(readBytes.take(bytes.toDouble, nowNanos()))

  def admitGetShardIterator(): Boolean = synchronized {
    val now = nowNanos()
    if (iteratorCalls.level(now) < 1) false else { iteratorCalls.take(1, now); true }
  }

  /** Whether one record of `bytes` (data and partition key) may be written now; if so, it counts. */
  def admitWrite(bytes: Long): Boolean = synchronized {
    val now = nowNanos()
    if (writeRecords.level(now) < 1 || writeBytes.level(now) < bytes) false
    else {
      writeRecords.take(1, now)
      writeBytes.take(bytes.toDouble, now)
      true
    }
  }
}

private[bench] object ShardLimits {
  val ReadBytesPerSecond: Double = 2.0 * 1024 * 1024
  val WriteBytesPerSecond: Double = 1024.0 * 1024
}
