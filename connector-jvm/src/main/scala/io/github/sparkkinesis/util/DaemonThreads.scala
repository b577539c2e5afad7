package io.github.sparkkinesis.util

import java.util.concurrent.{ExecutorService, LinkedBlockingQueue, ThreadFactory, ThreadPoolExecutor, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

/** Thread pools whose threads are named and daemon, so they never keep a JVM alive. */
object DaemonThreads {

  /** A pool of at most `size` threads, which end after a minute idle. */
  def pool(name: String, size: Int): ExecutorService = {
    val counter = new AtomicInteger()
    val factory: ThreadFactory = (r: Runnable) => {
      val t = new Thread(r, s"$name-${counter.incrementAndGet()}")
      t.setDaemon(true)
      t
    }
    val executor =
      new ThreadPoolExecutor(size, size, 60, TimeUnit.SECONDS, new LinkedBlockingQueue[Runnable](), factory)
    executor.allowCoreThreadTimeOut(true)
    executor
  }
}
