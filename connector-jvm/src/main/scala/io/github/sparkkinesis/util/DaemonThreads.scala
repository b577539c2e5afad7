package io.github.sparkkinesis.util

import java.util.concurrent._
import java.util.concurrent.atomic.AtomicInteger

/** Thread pools whose threads are named and daemon, so they never keep a JVM alive. */
object DaemonThreads {

  /**
   * A pool that grows as needed; idle threads end after a minute. Its callers bound how much they submit
   * (prefetch tasks: one thread per shard of a running task).
   */
  def cachedPool(name: String): ExecutorService =
    new ThreadPoolExecutor(0, Int.MaxValue, 60, TimeUnit.SECONDS, new SynchronousQueue[Runnable](), factory(name))

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
