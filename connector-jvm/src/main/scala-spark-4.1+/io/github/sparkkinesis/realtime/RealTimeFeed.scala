// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime

import java.util.concurrent.{Future, LinkedBlockingQueue, TimeUnit}
import java.util.concurrent.atomic.{AtomicInteger, AtomicIntegerArray, AtomicLong}

import scala.util.control.NonFatal

import io.github.sparkkinesis.client.{KinesisApi, RecordBatch}
import io.github.sparkkinesis.config.ReadConfig
import io.github.sparkkinesis.reading.FetchLoop
import io.github.sparkkinesis.realtime.RealTimeLane.Fetched
import io.github.sparkkinesis.util.{Clock, DaemonThreads}

/**
 * What a real-time task's shards bring, call by call, in each shard's order: read on the task's own thread
 * when it has one shard ([[RealTimeFeed.Inline]]), or, for several, on threads of their own
 * ([[RealTimeFeed.Threaded]]), so that a call to one shard never holds up another's records.
 */
private[realtime] trait RealTimeFeed extends AutoCloseable {

  /** What the next call read, waiting for it until `deadline` (epoch ms) at most. */
  def next(deadline: Long): Option[Fetched]

  /** Nothing more will come: every shard is closed and read to its end, and all of it was taken. */
  def exhausted: Boolean

  /** Ends the reading; what was read and not taken is dropped, to be read again by the next batch. */
  override def close(): Unit
}

private[realtime] object RealTimeFeed {

  /** The most threads a task reads its shards on; more shards share them. */
  val MaxThreads = 16

  /** The most record bytes a task holds read and not yet handed on; its threads wait beyond it. */
  val MaxHeldBytes: Long = 32L * 1024 * 1024

  private lazy val threads = DaemonThreads.cachedPool("kinesis-real-time")

  /** The feed of a task's `shards`; `seen` gets what its lanes see of each. */
  def apply(
      shards: IndexedSeq[RealTimeShard],
      api: KinesisApi,
      reading: ReadConfig,
      seen: RealTimeLane.Seen,
      clock: Clock): RealTimeFeed = {
    val dealt = FetchLoop.lanes(shards.indices.map(i => i -> shards(i)), MaxThreads)(_._2.consumerArn.isDefined)
    dealt.map(lane => new RealTimeLane(lane, api, reading, seen, clock)) match {
      case Seq(one) => new Inline(one)
      case many => new Threaded(many, shards.size, clock)
    }
  }

  /** One lane, read by the task's thread when it asks for more. */
  final class Inline(lane: RealTimeLane) extends RealTimeFeed {
    override def next(deadline: Long): Option[Fetched] = lane.read(deadline, _ => true, stopped = false)
    override def exhausted: Boolean = lane.done
    override def close(): Unit = lane.close()
  }

  /**
   * Lanes read on threads of their own from the first [[next]] on, until the deadline it gives: each shard
   * has at most one call's records waiting to be taken (the next call waits until they are), and all of
   * them together at most [[MaxHeldBytes]]. A failure that ends a lane fails the task at the next [[next]].
   */
  final class Threaded(lanes: Seq[RealTimeLane], shards: Int, clock: Clock) extends RealTimeFeed {
    private val queue = new LinkedBlockingQueue[Either[Throwable, Fetched]]()
    private val waiting = new AtomicIntegerArray(shards)
    private val held = new AtomicLong()
    private val running = new AtomicInteger(lanes.size)
    @volatile private var stopped = false
    private var started = Seq.empty[Future[_]]

    private def ready(shard: Int): Boolean = waiting.get(shard) == 0 && held.get() < MaxHeldBytes

    private def run(lane: RealTimeLane, deadline: Long): Unit =
      try {
        while (!lane.done && !stopped && clock.nowMillis() < deadline) {
          lane.read(deadline, ready, stopped).foreach { fetched =>
            waiting.set(fetched.index, 1)
            held.addAndGet(bytes(fetched))
            queue.put(Right(fetched))
          }
        }
      } catch {
        case NonFatal(e) => queue.put(Left(e))
      } finally {
        try lane.close()
        finally running.decrementAndGet()
      }

    override def next(deadline: Long): Option[Fetched] = {
      if (started.isEmpty)
        started = lanes.map(lane =>
          threads.submit(new Runnable { override def run(): Unit = Threaded.this.run(lane, deadline) }))
      var taken = Option.empty[Fetched]
      while (taken.isEmpty && !exhausted && clock.nowMillis() < deadline) {
        queue.poll(
          math.max(1L, math.min(FetchLoop.PollMs, deadline - clock.nowMillis())),
          TimeUnit.MILLISECONDS) match {
          case null => ()
          case Left(failure) => throw failure
          case Right(fetched) =>
            held.addAndGet(-bytes(fetched))
            waiting.set(fetched.index, 0)
            taken = Some(fetched)
        }
      }
      taken
    }

    // The count first: once no lane runs, everything they read is in the queue.
    override def exhausted: Boolean = running.get() == 0 && queue.isEmpty

    /** Stops the lanes and waits for their calls in flight, which each lane's subscriptions then outlive. */
    override def close(): Unit = {
      stopped = true
      if (started.isEmpty) lanes.foreach(_.close())
      started.foreach { f =>
        try f.get()
        catch { case NonFatal(_) => () } // a lane's failure was queued for the task, or the task is over
      }
    }
  }

  private def bytes(fetched: Fetched): Long = RecordBatch.dataBytes(fetched.records)
}
