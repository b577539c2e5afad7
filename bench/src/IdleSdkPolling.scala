// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.lang.management.ManagementFactory

import io.github.sparkkinesis.bench.synthetic.{SyntheticKinesis, SyntheticStream}
import software.amazon.awssdk.services.kinesis.model.{GetRecordsRequest, GetShardIteratorRequest, ShardIteratorType}

/**
 * The baseline of an idle query's polling: plain AWS SDK calls of a quiet stream's shards, as many a second as
 * the connector made, on as many threads as its prefetch task has, each shard in turn; the CPU of those
 * threads a call. What no polling reader can save: Kinesis has no call that says which shards have news.
 */
private[bench] object IdleSdkPolling {

  /** What the SDK's polling cost: its calls a second, and its threads' CPU, a share of a core and a call. */
  final case class Cost(callsPerSecond: Double, cpuShare: Double) {
    def microsPerCall: Double = if (callsPerSecond <= 0) 0.0 else cpuShare * 1e6 / callsPerSecond
  }

  /**
   * Calls the open shards of `stream` from their tips, `callsPerSecond` calls a second in all on `threads`
   * threads, for `seconds`; returns what it cost. The shards' iterators are asked for first, outside the
   * measured time.
   */
  def measure(
      kinesis: SyntheticKinesis,
      stream: SyntheticStream,
      callsPerSecond: Double,
      threads: Int,
      seconds: Int): Cost = {
    val client = kinesis.sdkClient()
    try {
      val name = stream.spec.name
      val iterators = stream.openShards.map { shard =>
        client
          .getShardIterator(
            GetShardIteratorRequest
              .builder()
              .streamName(name)
              .shardId(shard.id)
              .shardIteratorType(ShardIteratorType.LATEST)
              .build())
          .shardIterator()
      }.toArray
      val mx = ManagementFactory.getThreadMXBean
      val lanes = (0 until threads).map(t => iterators.indices.filter(_ % threads == t))
      val periodNanos = (threads * 1e9 / math.max(1.0, callsPerSecond)).toLong // between a lane's calls
      val until = System.nanoTime() + seconds * 1000000000L
      val cpu = new java.util.concurrent.atomic.AtomicLong()
      val calls = new java.util.concurrent.atomic.AtomicLong()
      val workers = lanes.map { lane =>
        val t = new Thread(
          () => {
            val started = mx.getCurrentThreadCpuTime
            var next = System.nanoTime()
            var i = 0
            while (System.nanoTime() < until && lane.nonEmpty) {
              val wait = next - System.nanoTime()
              if (wait > 0) Thread.sleep(wait / 1000000, (wait % 1000000).toInt)
              val shard = lane(i % lane.size)
              val answer = client.getRecords(GetRecordsRequest.builder().shardIterator(iterators(shard)).build())
              iterators(shard) = answer.nextShardIterator()
              calls.incrementAndGet()
              i += 1
              next += periodNanos
            }
            cpu.addAndGet(mx.getCurrentThreadCpuTime - started)
          },
          "idle-sdk-poller"
        )
        t.start()
        t
      }
      workers.foreach(_.join())
      Cost(calls.get.toDouble / seconds, cpu.get.toDouble / (seconds * 1e9))
    } finally client.close()
  }
}
