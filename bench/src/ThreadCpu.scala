// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.lang.management.ManagementFactory

/**
 * The CPU time of each live thread of the JVM, taken at one instant, to split a window's CPU by kind of thread
 * ([[ThreadCpu.Snapshot.spentSince]]). On Linux the JVM's own threads, which Java does not list, are read
 * from `/proc/self/task` too: its JIT compilers, whose work goes on long after a JVM starts, and its garbage
 * collector.
 */
private[bench] object ThreadCpu {

  /** What remains of a window's CPU once the threads alive at its end are counted. */
  val Ended = "JVM and threads that ended"

  val JitCompilers = "JVM: JIT compilers"
  val GarbageCollection = "JVM: garbage collection"

  /** The JVM's own threads of each kind, by the names Linux has for them (cut at 15 characters). */
  private def jvmKind(name: String): Option[String] =
    if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) Some(JitCompilers)
    else if (name.startsWith("GC Thread#") || name.startsWith("G1 ")) Some(GarbageCollection)
    else None

  /** The CPU nanoseconds of the JVM's own threads of each kind, as Linux counts them; none elsewhere. */
  private def jvmThreads(): Map[String, Long] = {
    val tasks = Option(new java.io.File("/proc/self/task").listFiles()).getOrElse(Array.empty[java.io.File])
    tasks.toSeq
      .flatMap { task =>
        try {
          val name = new String(java.nio.file.Files.readAllBytes(task.toPath.resolve("comm"))).trim
          jvmKind(name).map { kind =>
            val stat = new String(java.nio.file.Files.readAllBytes(task.toPath.resolve("stat")))
            // After the name in parentheses: state, then fields 4 to 52; utime and stime are the 14th and 15th.
            val fields = stat.substring(stat.lastIndexOf(')') + 2).split(' ')
            kind -> (fields(11).toLong + fields(12).toLong) * (1000000000L / ClockTicksPerSecond)
          }
        } catch { case _: java.io.IOException => None } // the thread ended meanwhile
      }
      .groupBy(_._1)
      .map { case (kind, all) => kind -> all.map(_._2).sum }
  }

  /** Linux' clock ticks a second in `/proc` (`getconf CLK_TCK`), 100 on every common kernel. */
  private val ClockTicksPerSecond = 100L

  /** The kind of a thread: its name without numbers and bracketed query ids. */
  def kindOf(name: String): String = name.replaceAll(" ?\\[.*\\]", "").replaceAll("[0-9]+", "#")

  final class Snapshot private[ThreadCpu] (
      val processNanos: Long,
      private val byThread: Map[Long, (String, Long)],
      private val jvm: Map[String, Long]) {

    /**
     * The CPU nanoseconds spent since `earlier` by each kind of thread, the JVM's own where they could be
     * read, and, as [[Ended]], the rest of the process' CPU: threads that ended within the window, and the
     * JVM's other threads.
     */
    def spentSince(earlier: Snapshot): Map[String, Long] = {
      val byKind = byThread.toSeq
        .map { case (id, (name, cpu)) => kindOf(name) -> (cpu - earlier.byThread.get(id).fold(0L)(_._2)) }
        .groupBy(_._1)
        .map { case (kind, all) => kind -> all.map(_._2).sum } ++
        jvm.map { case (kind, nanos) => kind -> (nanos - earlier.jvm.getOrElse(kind, 0L)) }
      byKind + (Ended -> ((processNanos - earlier.processNanos) - byKind.values.sum))
    }
  }

  def snapshot(): Snapshot = {
    val threads = ManagementFactory.getThreadMXBean
    val processNanos = BenchKinesis.processCpuNanos()
    val byThread = threads
      .getThreadInfo(threads.getAllThreadIds)
      .filter(_ != null)
      .map(t => t.getThreadId -> (t.getThreadName -> math.max(0L, threads.getThreadCpuTime(t.getThreadId))))
      .toMap
    new Snapshot(processNanos, byThread, jvmThreads())
  }
}
