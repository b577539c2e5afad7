// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.reading

import io.github.sparkkinesis.client.KinesisApiException
import io.github.sparkkinesis.util.{Backoff, Clock, Dealing}

/**
 * The one loop that reads shards, whatever the mode: one thread's shards, called one call at a time, each
 * call to the shard whose pacing lets it be called first ([[ShardFetcher.nextCallAt]], later after a failed
 * call). Each [[callNext]] waits for the shard due first, calls it, and says what the call came to; what to
 * do with the records and with a failure is the caller's: a prefetch task stores the records as blocks and
 * reports a failure to the driver ([[FetchLoop.stop]]), a real-time task hands the records on at once and
 * tries a failed call again ([[retryLater]]), a range reader returns its range's records and gives up when
 * the failures outlast `outageTimeout`. Failures are classified once, by [[FetchFailure.of]]. Not
 * thread-safe: one thread drives it.
 *
 * @param target the Kinesis endpoint, for the errors users see
 */
private[sparkkinesis] final class FetchLoop(initial: IndexedSeq[ShardFetcher], clock: Clock, target: String) {
  import FetchLoop._

  private val fetchers = initial.toArray
  private val stopped = Array.fill(fetchers.length)(false)
  private val failures = Array.fill(fetchers.length)(0)
  private val failingSince = Array.fill(fetchers.length)(-1L)
  private val retryAt = Array.fill(fetchers.length)(0L)

  def size: Int = fetchers.length

  def fetcher(i: Int): ShardFetcher = fetchers(i)

  /** Whether shard `i` is still read: not stopped, and not finished. */
  def reading(i: Int): Boolean = !stopped(i) && !fetchers(i).finished

  /** No shard is read any more. */
  def done: Boolean = fetchers.indices.forall(!reading(_))

  /** Stops calling shard `i`: its reading is over here. */
  def stop(i: Int): Unit = stopped(i) = true

  /** Reads shard `i` with `next` from now on (closing the one before), as soon as its pacing allows. */
  def replace(i: Int, next: ShardFetcher): Unit = {
    fetchers(i).close()
    fetchers(i) = next
  }

  /**
   * After a failed call, shard `i` is called again after a pause that doubles with each failure in a row,
   * from [[RetryPauseMs]] to [[MaxRetryPauseMs]]; returns the pause.
   */
  def retryLater(i: Int): Long = {
    val pause = Backoff.pauseAfter(failures(i), RetryPauseMs, MaxRetryPauseMs)
    retryAt(i) = clock.nowMillis() + pause
    pause
  }

  private def callAt(i: Int): Long = math.max(fetchers(i).nextCallAt, retryAt(i))

  /**
   * The shard, read and `ready`, whose next call is due first; -1 if there is none. Each shard's time is
   * asked for once: a thread over thousands of shards looks through them at every call.
   */
  private def due(ready: Int => Boolean): Int = {
    var first = -1
    var firstAt = Long.MaxValue
    var i = 0
    while (i < fetchers.length) {
      if (reading(i) && ready(i)) {
        val at = callAt(i)
        if (first < 0 || at < firstAt) {
          first = i
          firstAt = at
        }
      }
      i += 1
    }
    first
  }

  /**
   * Waits for the shard due first among those `ready` (by index), and calls it once; None if `until` (epoch
   * ms) came first, `halt` said so, or no shard is read any more. Waits [[PollMs]] at most at a time, so that
   * it sees `halt` soon.
   */
  def callNext(until: Long, halt: => Boolean = false, ready: Int => Boolean = _ => true): Option[Call] = {
    var call = Option.empty[Call]
    var waiting = true
    while (waiting && !halt && !done) {
      val now = clock.nowMillis()
      if (now >= until) waiting = false
      else {
        val next = due(ready)
        val wait = if (next < 0) PollMs else callAt(next) - now
        if (wait > 0) clock.sleep(math.min(math.min(wait, PollMs), until - now))
        else {
          call = Some(this.call(next))
          waiting = false
        }
      }
    }
    call
  }

  private def call(i: Int): Call = {
    val fetcher = fetchers(i)
    try {
      fetcher.fetchOnce()
      failures(i) = 0
      failingSince(i) = -1
      Called(i)
    } catch {
      case e: KinesisApiException =>
        val now = clock.nowMillis()
        failures(i) += 1
        if (failingSince(i) < 0) failingSince(i) = now
        Failed(i, FetchFailure.of(e, fetcher.shard, fetcher.subscribes, target), e, now - failingSince(i))
    }
  }

  /** Releases what every shard's reads hold open (subscriptions wait in the pool for the next reader). */
  def close(): Unit = fetchers.foreach(_.close())
}

private[sparkkinesis] object FetchLoop {

  /** The longest a loop waits at once, so that it sees soon when its reading is over. */
  val PollMs = 20L

  /** Pauses after failed calls that are tried again, doubling from the first to the last. */
  val RetryPauseMs = 500L
  val MaxRetryPauseMs = 5000L

  /** What a call came to. */
  sealed trait Call {

    /** The shard called, by its index in the loop. */
    def shard: Int
  }

  /** The call succeeded: the fetcher holds what it read, if anything. */
  final case class Called(shard: Int) extends Call

  /**
   * The call failed; `failingForMs` is how long the shard's calls have failed without a success between.
   *
   * @param cause the failure as the client raised it, for logs
   */
  final case class Failed(shard: Int, failure: FetchFailure, cause: KinesisApiException, failingForMs: Long)
      extends Call

  /**
   * How a task's shards share its `threads`: a subscribed shard has a thread of its own, as it waits on
   * pushed events, as long as that leaves a thread for the polled shards; the other shards are dealt in turn
   * to the threads left, where each thread calls whichever of its shards is due first.
   */
  def lanes[T](shards: IndexedSeq[T], threads: Int)(subscribes: T => Boolean): IndexedSeq[IndexedSeq[T]] = {
    val (subscribed, polled) = shards.partition(subscribes)
    val alone = math.min(subscribed.size, math.max(0, threads - (if (polled.isEmpty) 0 else 1)))
    val shared = subscribed.drop(alone) ++ polled
    subscribed.take(alone).map(IndexedSeq(_)) ++ Dealing.inTurn(shared, math.max(1, threads - alone))
  }
}
