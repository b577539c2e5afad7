// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.util

import java.util.concurrent._
import java.util.concurrent.atomic.AtomicInteger

/** Thread pools whose threads are named and daemon, so they never keep a JVM alive. */
private[sparkkinesis] object DaemonThreads {

  /**
   * A pool that grows as needed; idle threads end after a minute. Its callers bound how much they submit
   * (prefetch tasks: one thread per shard of a running task).
   */
  def cachedPool(name: String): ExecutorService =
    new ThreadPoolExecutor(0, Int.MaxValue, 60, TimeUnit.SECONDS, new SynchronousQueue[Runnable](), factory(name))

  /** A pool of `threads` threads; what is submitted beyond them waits in an unbounded queue. */
  def fixedPool(name: String, threads: Int): ExecutorService = Executors.newFixedThreadPool(threads, factory(name))

  /** One thread that runs what is scheduled on it. */
  def scheduler(name: String): ScheduledExecutorService = Executors.newSingleThreadScheduledExecutor(factory(name))

  private lazy val shield = cachedPool("kinesis-driver-call")

  /**
   * Runs `body` on a pool thread and waits for it. When the waiting thread is interrupted (Spark interrupts
   * a query's thread to stop it), the wait ends with an InterruptedException but `body` runs to its end:
   * a network call is never cut off mid-request, which would reset its connection.
   */
  def shieldedFromInterrupts[T](body: => T): T = {
    val call = shield.submit(new Callable[T] { override def call(): T = body })
    try call.get()
    catch { case e: ExecutionException => throw e.getCause }
  }

  /** One daemon thread, started. */
  def start(name: String)(body: => Unit): Thread = {
    val t = new Thread(() => body, name)
    t.setDaemon(true)
    t.start()
    t
  }

  private def factory(name: String): ThreadFactory = {
    val counter = new AtomicInteger()
    (r: Runnable) => {
      val t = new Thread(r, s"$name-${counter.incrementAndGet()}")
      t.setDaemon(true)
      t
    }
  }
}
