// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.util.concurrent.TimeUnit

import scala.jdk.CollectionConverters._

/**
 * The executor JVMs of a `local-cluster` master, found and killed by PID, to lose an executor as a cluster
 * loses one: a JVM that dies at once, its blocks, tasks and open connections gone with it.
 *
 * In `local-cluster` mode the master and workers run inside the driver's JVM and each worker launches its
 * executors as child processes (`CoarseGrainedExecutorBackend ... --executor-id N`), so they are found among
 * this JVM's descendants by their command lines. A worker relaunches an executor that died under a new id.
 * Works on any JVM that can read its children's command lines (Linux, macOS); knows nothing of Spark's API,
 * so suites and benchmarks alike can use it. Thread-safe.
 */
object ExecutorProcesses {
  private val Backend = "org.apache.spark.executor.CoarseGrainedExecutorBackend"

  /** The running executor JVMs started from `driver` (by default this JVM), by executor id. */
  def running(driver: ProcessHandle = ProcessHandle.current()): Map[String, ProcessHandle] =
    driver
      .descendants()
      .iterator()
      .asScala
      .filter(_.isAlive)
      .flatMap(p => executorIdOf(p.info().arguments().orElse(Array.empty[String]).toSeq).map(_ -> p))
      .toMap

  /** The executor id in an executor JVM's arguments, if they are an executor's. */
  def executorIdOf(arguments: Seq[String]): Option[String] =
    if (!arguments.contains(Backend)) None
    else arguments.sliding(2).collectFirst { case Seq("--executor-id", id) => id }

  /**
   * Kills the JVM of executor `executorId` with SIGKILL, as the kernel's OOM killer or a lost machine would
   * (no shutdown hook runs, nothing is handed over), and waits until it is gone. Returns its PID.
   */
  def kill(executorId: String, driver: ProcessHandle = ProcessHandle.current()): Long = {
    val process = running(driver).getOrElse(
      executorId,
      throw new IllegalArgumentException(
        s"No executor JVM with id $executorId among the children of ${driver.pid()}; running: " +
          running(driver).keySet.toSeq.sorted)
    )
    process.destroyForcibly()
    process.onExit().get(30, TimeUnit.SECONDS) // a TimeoutException if it outlives SIGKILL
    process.pid()
  }

  /**
   * Removes what a `local-cluster`'s workers kept of application `appId`'s executors: its folder under
   * `$SPARK_HOME/work` (a copy of every jar it was given, each executor's logs), which outlives the
   * application and would grow by the connector jar's size with every cluster a test starts.
   */
  def removeWorkFolder(appId: String): Unit =
    sys.env.get("SPARK_HOME").map(home => new java.io.File(home, s"work/$appId")).filter(_.isDirectory).foreach {
      folder =>
        val paths = java.nio.file.Files.walk(folder.toPath)
        try paths.sorted(java.util.Comparator.reverseOrder()).iterator().asScala.foreach(p => p.toFile.delete())
        finally paths.close()
    }
}
