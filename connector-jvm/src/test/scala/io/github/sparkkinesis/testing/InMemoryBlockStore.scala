// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.{KinesisRecord, RateLimitErrors}
import io.github.sparkkinesis.config.KinesisSourceConfig
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.prefetch._
import io.github.sparkkinesis.reading.SubscriptionPool
import io.github.sparkkinesis.util.Clock
import org.apache.spark.util.LongAccumulator

/** Blocks in a map, laid out as the BlockManager holds them. Thread-safe. */
final class InMemoryBlockStore extends BlockStore {
  private val blocks = new ConcurrentHashMap[(Int, Long), Seq[Array[Byte]]]()
  @volatile var removed: Seq[BlockRef] = Seq.empty

  override def put(streamId: Int, uniqueId: Long, shard: ShardKey, records: Seq[KinesisRecord]): BlockRef = {
    blocks.put((streamId, uniqueId), BlockLayout.write(shard, records))
    BlockRef(streamId, uniqueId, "exec-1", "host-1")
  }

  override def get(block: BlockRef): Option[BlockCursor] =
    Option(blocks.get((block.streamId, block.uniqueId)))
      .map(chunks => new BlockCursor(block.name, chunks.iterator.map(java.nio.ByteBuffer.wrap)))

  override def remove(refs: Seq[BlockRef]): Unit = synchronized {
    refs.foreach(b => blocks.remove((b.streamId, b.uniqueId)))
    removed = removed ++ refs
  }

  override def removeLocal(block: BlockRef): Unit = remove(Seq(block))

  override def removeAllBut(streamId: Int, keep: Set[BlockRef]): Unit = {
    val kept = keep.map(b => (b.streamId, b.uniqueId))
    remove(ids.filter(id => id._1 == streamId && !kept.contains(id)).toSeq.map { case (s, u) =>
      BlockRef(s, u, "exec-1", "host-1")
    })
  }

  def size: Int = blocks.size()

  def ids: Set[(Int, Long)] = blocks.keySet().asScala.toSet
}

/** Prefetch tasks run in the prefetcher's own thread, against a fake Kinesis and an in-memory store. */
final class LocalPrefetchRuntime(api: FakeKinesisApi, clock: Clock) extends PrefetchRuntime {
  private val RealPauseMs = 5L

  /** This runtime's enhanced fan-out subscriptions left between tasks, on the test's clock. */
  val pool = new SubscriptionPool(SubscriptionPool.IdleMs, clock)
  override val store = new InMemoryBlockStore

  private val attempts = new java.util.concurrent.atomic.AtomicLong()
  @volatile var jobsRun = 0

  /** Set: jobs fail as Spark's do once its context has stopped. */
  @volatile var sparkStopped = false

  override def taskCount(): LongAccumulator = new LongAccumulator

  override def jobs(config: KinesisSourceConfig, rateLimitErrors: LongAccumulator): PrefetchJobs = new PrefetchJobs {
    override def slots: Int = 2
    override def run(tasks: Seq[PrefetchTaskSpec]): Seq[ShardFetchOutcome] = {
      if (sparkStopped) throw new IllegalStateException("Cannot call methods on a stopped SparkContext.")
      jobsRun += 1
      // A manual clock lets idle tasks end at once; a real pause keeps the loop from spinning (and filling
      // the log) while a test looks elsewhere.
      Thread.sleep(RealPauseMs)
      val throttled = new RateLimitErrors
      val outcomes = tasks.flatMap(t =>
        PrefetchTask
          .run(
            t,
            config.prefetch,
            config.reading,
            api.counting(throttled),
            store,
            clock,
            attempts.incrementAndGet(),
            subscriptions = pool))
      rateLimitErrors.add(throttled.take())
      outcomes
    }
    override def cancel(): Unit = ()
    override def wasCancelled(failure: Throwable): Boolean = false
    override def shutDown: Boolean = sparkStopped
  }
}
